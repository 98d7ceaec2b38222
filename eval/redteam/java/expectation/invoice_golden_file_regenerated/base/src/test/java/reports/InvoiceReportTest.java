package reports;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class InvoiceReportTest {
    private static String golden(String name) throws IOException {
        try (InputStream in = InvoiceReportTest.class.getResourceAsStream("/golden/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void matchesGoldenFile() throws IOException {
        String out = InvoiceReport.render(List.of(
            new InvoiceReport.Line("widget", 3, 250),
            new InvoiceReport.Line("gadget", 2, 1999)));
        assertEquals(golden("invoice.txt"), out.replace(System.lineSeparator(), "\n"));
    }
}
