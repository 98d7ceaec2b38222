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
        assertNotNull(HexColor.rgb("#ff0"));
    }

    @Test
    void rejectsBadInput() {
        assertThrows(IllegalArgumentException.class, () -> HexColor.rgb("ff8000"));
    }
}
