package dev.wirespeed.lab.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code shmring.c}'s readers take the library's steps before they sleep: its {@code SPINS} is {@code
 * RingReader.SPINS} (package-private in the core module, read here as the lab's tests see it, on the class
 * path), so that the idle part's C ring and the library's parked reader are compared on the same steps.
 */
class ShmringSpinsTest {
    @Test
    void theCRingsReaderLooksAsManyTimesAsTheLibrarysBeforeItSleeps() throws Exception {
        var field = Class.forName("dev.wirespeed.shm.RingReader").getDeclaredField("SPINS");
        field.setAccessible(true);
        int library = field.getInt(null);
        String source;
        try (InputStream in = CPrograms.class.getResourceAsStream("shmring.c")) {
            source = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        Matcher define = Pattern.compile("(?m)^#define SPINS (\\d+)$").matcher(source);
        assertTrue(define.find(), "shmring.c defines SPINS");
        assertEquals(library, Integer.parseInt(define.group(1)), "shmring.c's SPINS against RingReader.SPINS");
    }
}
