package codec;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class Base64UrlTest {
    private static String enc(String s) {
        return Base64Url.encode(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void urlSafeAlphabet() {
        assertEquals("-_8", Base64Url.encode(new byte[]{(byte) 0xfb, (byte) 0xff}).substring(0, 3));
    }

    @Test
    void noPadding() {
        assertEquals("YQ", enc("a"));
        assertEquals("YWI", enc("ab"));
        assertEquals("YWJj", enc("abc"));
    }
}
