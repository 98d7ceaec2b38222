package humanize;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class TimeAgoBoundaryTest {
    @Test
    void exactlyOneDay() {
        assertEquals("1 day ago", TimeAgo.format(86400));
    }

    @Test
    void exactlyOneMinute() {
        assertEquals("1 minute ago", TimeAgo.format(60));
    }
}
