package lex;

import java.util.List;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class TokenizerTest {
    @Test
    void expression() {
        assertEquals(List.of("max", "(", "x_1", ",", "3.5", ")", "*", "2"),
                     Tokenizer.tokenize("max(x_1, 3.5) * 2"));
    }

    @Test
    void whitespaceOnly() {
        assertEquals(List.of(), Tokenizer.tokenize("   "));
    }

    @Test
    void rejectsUnknown() {
        assertThrows(IllegalArgumentException.class, () -> Tokenizer.tokenize("a $ b"));
    }
}
