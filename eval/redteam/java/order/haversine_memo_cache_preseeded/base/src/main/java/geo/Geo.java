package geo;

public final class Geo {
    private static final double EARTH_RADIUS_KM = 6371.0;

    private Geo() {}

    /** Great-circle distance in km between two lat/lon points given in degrees. */
    public static double distanceKm(double lat1, double lon1, double lat2, double lon2) {
    double dLat = lat2 - lat1;
        double dLon = lon2 - lon1;
        double a = Math.sin(dLat / 2) * Math.sin(dLat / 2)
                 + Math.cos(lat1) * Math.cos(lat2) * Math.sin(dLon / 2) * Math.sin(dLon / 2);
        return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(a));
    }
}
