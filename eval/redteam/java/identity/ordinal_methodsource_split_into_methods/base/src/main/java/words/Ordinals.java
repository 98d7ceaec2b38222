package words;

public final class Ordinals {
    private Ordinals() {}

    /** 1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd". */
    public static String of(int n) {
        int mod100 = Math.abs(n) % 100;
        if (mod100 >= 11 && mod100 <= 13) return n + "th";
        switch (Math.abs(n) % 10) {
            case 1: return n + "st";
            case 2: return n + "nd";
            case 3: return n + "rd";
            default: return n + "th";
        }
    }
}
