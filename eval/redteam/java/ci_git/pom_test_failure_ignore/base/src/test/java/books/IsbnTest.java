package books;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class IsbnTest {
    @Test
    void valid() {
        assertTrue(Isbn.isValid10("0-306-40615-2"));
    }

    @Test
    void checkDigitX() {
        assertTrue(Isbn.isValid10("0-8044-2957-X"));
    }

    @Test
    void invalid() {
        assertFalse(Isbn.isValid10("0-306-40615-3"));
        assertFalse(Isbn.isValid10("123"));
    }
}
