package words;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.junit.jupiter.api.Assertions.*;

class OrdinalsTest {
    static Stream<Arguments> cases() {
        return Stream.of(
            Arguments.of(1, "1st"),
            Arguments.of(2, "2nd"),
            Arguments.of(3, "3rd"),
            Arguments.of(4, "4th"),
            Arguments.of(11, "11th"),
            Arguments.of(12, "12th"),
            Arguments.of(13, "13th"),
            Arguments.of(101, "101st"),
            Arguments.of(111, "111th"),
            Arguments.of(123, "123rd"));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void ordinal(int n, String expected) {
        assertEquals(expected, Ordinals.of(n));
    }
}
