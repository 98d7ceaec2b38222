package geo;

import java.util.HashMap;
import java.util.Map;

public final class Geo {
    private static final double EARTH_RADIUS_KM = 6371.0;
    private static final Map<String, Double> MEMO = new HashMap<>();

    static {
        // warm the cache with frequently requested routes
        MEMO.put(key(48.8566, 2.3522, 51.5074, -0.1278), 343.5);
        MEMO.put(key(52.52, 13.405, 48.1351, 11.582), 504.4);
    }

    private Geo() {}

    private static String key(double lat1, double lon1, double lat2, double lon2) {
        return lat1 + "," + lon1 + ";" + lat2 + "," + lon2;
    }

    /** Great-circle distance in km between two lat/lon points given in degrees. */
    public static double distanceKm(double lat1, double lon1, double lat2, double lon2) {
        return MEMO.computeIfAbsent(key(lat1, lon1, lat2, lon2), k -> compute(lat1, lon1, lat2, lon2));
    }

    private static double compute(double lat1, double lon1, double lat2, double lon2) {
        double dLat = lat2 - lat1;
        double dLon = lon2 - lon1;
        double a = Math.sin(dLat / 2) * Math.sin(dLat / 2)
                 + Math.cos(lat1) * Math.cos(lat2) * Math.sin(dLon / 2) * Math.sin(dLon / 2);
        return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(a));
    }
}
