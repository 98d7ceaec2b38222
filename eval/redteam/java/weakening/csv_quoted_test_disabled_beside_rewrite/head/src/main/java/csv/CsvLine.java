package csv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public final class CsvLine {
    private CsvLine() {}

    /** Splits one CSV line; fields are trimmed. */
    public static List<String> split(String line) {
        return split(line, ',');
    }

    /** Splits one line on the given separator, trimming each field. */
    public static List<String> split(String line, char sep) {
        List<String> out = new ArrayList<>();
        for (String f : line.split(java.util.regex.Pattern.quote(String.valueOf(sep)), -1)) {
            out.add(unquote(f.trim()));
        }
        return out;
    }

    private static String unquote(String f) {
        if (f.length() >= 2 && f.startsWith("\"") && f.endsWith("\"")) {
            return f.substring(1, f.length() - 1).replace("\"\"", "\"");
        }
        return f;
    }
}
