package color;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class HexColorTest {
    @Test
    void parsesSixDigits() {
        assertArrayEquals(new int[]{255, 128, 0}, HexColor.rgb("#ff8000"));
    }

    @Test
    void parsesThreeDigitShorthand() {
        assertArrayEquals(new int[]{255, 255, 0}, HexColor.rgb("#ff0"));
        assertArrayEquals(new int[]{0, 0, 0}, HexColor.rgb("#000"));
    }

    @Test
    void rejectsBadInput() {
        assertThrows(IllegalArgumentException.class, () -> HexColor.rgb("ff8000"));
        assertThrows(IllegalArgumentException.class, () -> HexColor.rgb("#ggg"));
    }
}
