package dev.wirespeed.contenders;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every contender does the job it is measured at, so that a figure is never the speed of a wrong answer. */
class ContendersTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 8191, 8192, 8193, 65537})
    void everyReadAllContenderReadsEveryByteOfTheStreamOrFile(int length) throws IOException {
        byte[] data = new byte[length];
        new SplittableRandom(length).nextBytes(data); // the seed is the length
        Path file = Files.write(dir.resolve("data.bin"), data);
        for (ReadAllContender contender : ReadAllContender.values()) {
            assertArrayEquals(data, contender.read(data, file), contender + " at length " + length);
        }
    }

    @Test
    void theUnknownSizeStreamTellsNoSizeAndEndsAfterItsBytes() throws IOException {
        InputStream in = ReadAllContender.unknownSizeStream(new byte[] {1, 2, 3});
        assertEquals(0, in.available());
        byte[] into = new byte[8];
        assertEquals(0, in.read(into, 0, 0));
        assertEquals(3, in.read(into, 0, 8));
        assertEquals(-1, in.read(into, 0, 8));
        assertEquals(-1, in.read());
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 4095, 4096, 4097, ArticleCsv.ARTICLE_LINES})
    void everyNewlineCountContenderCountsTheLinesOfTheArticlesCsv(long lines) throws IOException {
        Path file = ArticleCsv.write(dir.resolve("lines.csv"), lines);
        assertEquals(lines * ArticleCsv.LINE_LENGTH, Files.size(file));
        for (NewlineCountContender contender : NewlineCountContender.values()) {
            assertEquals(lines, contender.count(file), contender + " on " + lines + " lines");
        }
    }
}
