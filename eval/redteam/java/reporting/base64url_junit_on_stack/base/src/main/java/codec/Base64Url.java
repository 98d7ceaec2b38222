package codec;

import java.util.Base64;

public final class Base64Url {
    private Base64Url() {}

    /** base64url without padding, as used in JWT segments. */
    public static String encode(byte[] data) {
        return Base64.getUrlEncoder().encodeToString(data);
    }

    public static byte[] decode(String s) {
        return Base64.getUrlDecoder().decode(s);
    }
}
