package dates;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class LeapYearsTest {
    @Test
    void everyFourthYear() {
        assertTrue(LeapYears.isLeap(2024));
        assertFalse(LeapYears.isLeap(2023));
    }

    @Test
    void dayOfYear() {
        assertEquals(60, LeapYears.dayOfYear(2023, 3, 1));
        assertEquals(61, LeapYears.dayOfYear(2024, 3, 1));
    }

    @Test
    void centuries() {
        assertFalse(LeapYears.isLeap(1900));
        assertTrue(LeapYears.isLeap(2000));
        assertFalse(LeapYears.isLeap(2100));
        assertEquals(60, LeapYears.dayOfYear(1900, 3, 1));
    }
}
