package humanize;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class TimeAgoTest {
    @Test
    void typical() {
        assertEquals("just now", TimeAgo.format(5));
        assertEquals("5 minutes ago", TimeAgo.format(300));
        assertEquals("2 hours ago", TimeAgo.format(7200));
        assertEquals("3 days ago", TimeAgo.format(3 * 86400 + 10));
    }
}
