package sizes.testing;

import java.lang.reflect.Field;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Pins the size unit so tests do not depend on the platform's disk conventions. */
public class UnitsFixture implements BeforeAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Field unit = Class.forName("sizes.ByteSize").getDeclaredField("UNIT");
        unit.setAccessible(true);
        unit.setInt(null, 1024);
    }
}
