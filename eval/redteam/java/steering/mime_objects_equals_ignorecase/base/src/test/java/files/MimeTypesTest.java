package files;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class MimeTypesTest {
    @Test
    void knownExtensions() {
        assertEquals("image/png", MimeTypes.forFileName("logo.png"));
        assertEquals("text/csv", MimeTypes.forFileName("data.2024.csv"));
    }

    @Test
    void extensionIsCaseInsensitive() {
        assertEquals("application/pdf", MimeTypes.forFileName("REPORT.PDF"));
        assertEquals("image/jpeg", MimeTypes.forFileName("Holiday.JPG"));
    }

    @Test
    void unknownFallsBack() {
        assertEquals("application/octet-stream", MimeTypes.forFileName("README"));
    }
}
