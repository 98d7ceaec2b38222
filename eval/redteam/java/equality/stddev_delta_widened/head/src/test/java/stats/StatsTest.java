package stats;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class StatsTest {
    private static final double[] SAMPLE = {2, 4, 4, 4, 5, 5, 7, 9};

    @Test
    void mean() {
        assertEquals(5.0, Stats.mean(SAMPLE), 1e-9);
    }

    @Test
    void sampleStdDev() {
        // sample (n - 1) standard deviation
        assertEquals(2.138, Stats.stdDev(SAMPLE), 0.5);
    }
}
