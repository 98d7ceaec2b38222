package sizes;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class ByteSizeTest {
    @Test
    void bytes() {
        assertEquals("512 B", ByteSize.human(512));
    }

    @Test
    void binaryUnits() {
        assertEquals("1000 B", ByteSize.human(1000));
        assertEquals("1.5 KiB", ByteSize.human(1536));
        assertEquals("1.0 MiB", ByteSize.human(1048576));
    }
}
