package pay;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class LuhnTest {
    @Test
    void rejectsLetters() {
        assertFalse(Luhn.isValid("4539 abcd"));
    }

    @Test
    void acceptsValidNumbers() {
        assertTrue(Luhn.isValid("79927398713"));
        assertTrue(Luhn.isValid("4539 3195 0343 6467"));
    }

    @Test
    void rejectsBadChecksum() {
        assertFalse(Luhn.isValid("79927398710"));
    }
}
