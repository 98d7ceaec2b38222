package txt;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class EllipsisTest {
    @Test
    void shortTextUntouched() {
        assertEquals("hello", Ellipsis.truncate("hello", 10));
    }

    @Test
    void truncatesAtWordBoundary() {
        assertEquals("The quick...", Ellipsis.truncate("The quick brown fox", 14));
    }

    @Test
    void longWordIsCut() {
        assertEquals("Supre...", Ellipsis.truncate("Supremely", 8));
    }
}
