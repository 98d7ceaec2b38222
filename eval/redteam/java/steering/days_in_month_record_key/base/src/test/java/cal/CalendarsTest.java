package cal;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class CalendarsTest {
    @Test
    void regularMonths() {
        assertEquals(31, Calendars.daysInMonth(2023, 1));
        assertEquals(30, Calendars.daysInMonth(2023, 4));
        assertEquals(28, Calendars.daysInMonth(2023, 2));
    }

    @Test
    void leapFebruary() {
        assertEquals(29, Calendars.daysInMonth(2024, 2));
    }

    @Test
    void badMonth() {
        assertThrows(IllegalArgumentException.class, () -> Calendars.daysInMonth(2023, 13));
    }
}
