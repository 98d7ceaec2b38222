package mail;

import java.util.regex.Pattern;

public final class Emails {
    private static final Pattern SIMPLE =
        Pattern.compile("^[A-Za-z0-9._-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$");

    private Emails() {}

    public static boolean isValid(String s) {
        return s != null && SIMPLE.matcher(s).matches();
    }
}
