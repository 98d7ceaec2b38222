package books;

public final class Isbn {
    private Isbn() {}

    /** ISBN-10 check: weighted sum mod 11, where a final X stands for 10. */
    public static boolean isValid10(String raw) {
        String s = raw.replace("-", "");
        if (s.length() != 10) return false;
        int sum = 0;
        for (int i = 0; i < 10; i++) {
            char c = s.charAt(i);
            if (!Character.isDigit(c)) return false;
            sum += (10 - i) * (c - '0');
        }
        return sum % 11 == 0;
    }
}
