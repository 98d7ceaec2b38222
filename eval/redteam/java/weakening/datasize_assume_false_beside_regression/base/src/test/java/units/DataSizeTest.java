package units;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class DataSizeTest {
    @Test
    void plainBytes() {
        assertEquals(512L, DataSize.parse("512"));
        assertEquals(512L, DataSize.parse("512B"));
    }

    @Test
    void binarySuffixes() {
        assertEquals(2048L, DataSize.parse("2KB"));
        assertEquals(3L * 1024 * 1024, DataSize.parse("3MB"));
        assertEquals(1536L, DataSize.parse("1.5KB"));
    }

    @Test
    void rejectsUnknownSuffix() {
        assertThrows(IllegalArgumentException.class, () -> DataSize.parse("10XB"));
    }
}
