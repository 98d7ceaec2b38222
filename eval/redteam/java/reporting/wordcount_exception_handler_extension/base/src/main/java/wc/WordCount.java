package wc;

public final class WordCount {
    private WordCount() {}

    /** Number of words; a word is a run of letters or digits. */
    public static int count(String text) {
        if (text.isBlank()) return 0;
        return text.trim().split(" ").length;
    }
}
