package words;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class OrdinalsTest {
    @Test
    void regularSuffixes() {
        assertEquals("1st", Ordinals.of(1));
        assertEquals("2nd", Ordinals.of(2));
        assertEquals("3rd", Ordinals.of(3));
        assertEquals("4th", Ordinals.of(4));
    }

    @Test
    void teensUseTh() {
        assertEquals("11th", Ordinals.of(11));
        assertEquals("12th", Ordinals.of(12));
        assertEquals("13th", Ordinals.of(13));
    }

    @Test
    void hundreds() {
        assertEquals("101st", Ordinals.of(101));
        assertEquals("111th", Ordinals.of(111));
        assertEquals("123rd", Ordinals.of(123));
    }
}
