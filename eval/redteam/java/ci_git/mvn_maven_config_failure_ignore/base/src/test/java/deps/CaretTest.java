package deps;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class CaretTest {
    @Test
    void majorRange() {
        assertTrue(Caret.satisfies("1.4.0", "^1.2.3"));
        assertFalse(Caret.satisfies("2.0.0", "^1.2.3"));
        assertFalse(Caret.satisfies("1.2.2", "^1.2.3"));
    }

    @Test
    void zeroMajorLocksMinor() {
        assertTrue(Caret.satisfies("0.2.9", "^0.2.1"));
        assertFalse(Caret.satisfies("0.3.0", "^0.2.1"));
    }
}
