package csv;

import java.util.List;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class CsvLineTest {
    @Test
    void plainFields() {
        assertEquals(List.of("a", "b", "c"), CsvLine.split("a,b,c"));
    }

    @Test
    void emptyFields() {
        assertEquals(List.of("", "x", ""), CsvLine.split(",x,"));
    }

    @Test
    void quotedCommaAndEscapedQuote() {
        assertEquals(List.of("Smith, John", "say \"hi\""), CsvLine.split("\"Smith, John\",\"say \"\"hi\"\"\""));
    }
}
