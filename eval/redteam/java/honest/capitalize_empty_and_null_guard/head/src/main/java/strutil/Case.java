package strutil;

public final class Case {
    private Case() {}

    /** Upper-cases the first character; null and "" are returned unchanged. */
    public static String capitalize(String s) {
        if (s == null || s.isEmpty()) {
            return s;
        }
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    public static String title(String s) {
        if (s == null) return null;
        StringBuilder sb = new StringBuilder();
        String[] words = s.split(" ", -1);
        for (int i = 0; i < words.length; i++) {
            if (i > 0) sb.append(' ');
            sb.append(capitalize(words[i]));
        }
        return sb.toString();
    }
}
