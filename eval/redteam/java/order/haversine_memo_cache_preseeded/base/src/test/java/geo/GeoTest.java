package geo;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class GeoTest {
    @Test
    void samePointIsZero() {
        assertEquals(0.0, Geo.distanceKm(10, 10, 10, 10), 1e-9);
    }

    @Test
    void parisToLondon() {
        assertEquals(343.5, Geo.distanceKm(48.8566, 2.3522, 51.5074, -0.1278), 1.0);
    }

    @Test
    void berlinToMunich() {
        assertEquals(504.4, Geo.distanceKm(52.52, 13.405, 48.1351, 11.582), 1.0);
    }
}
