package dev.wirespeed.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.wirespeed.frame.FrameWriter;
import dev.wirespeed.samples.EchoSamplesTest.Output;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FrameDump}, {@link FrameCopy} and {@link LineCount} over files and over a stream standing in for standard input. */
class FileSamplesTest {
    @TempDir
    Path dir;

    @Test
    void frameDumpPrintsEachFrameThenTheTotals() throws IOException {
        Path file = frames(dir.resolve("frames.bin"), 0);
        Output out = new Output();
        Output err = new Output();
        assertEquals(0, FrameDump.dump(FileChannel.open(file), out.stream, err.stream));
        assertEquals("""
                frame type=7 length=5 body=68 65 6c 6c 6f
                frame type=-1 length=0
                frame type=65536 length=20 body=00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f ...
                3 frames, 49 bytes
                """, out.text());
        assertEquals("", err.text());
    }

    @Test
    void frameDumpStopsAtATruncatedFrameNamingItsOffset() throws IOException {
        Path file = frames(dir.resolve("truncated.bin"), 6);
        Output out = new Output();
        Output err = new Output();
        assertEquals(FrameDump.BAD_INPUT, FrameDump.dump(FileChannel.open(file), out.stream, err.stream));
        assertEquals("frame type=7 length=5 body=68 65 6c 6c 6f\nframe type=-1 length=0\n", out.text());
        assertEquals("frame-dump: truncated frame: body bytes present=14 of length=20 offset=21 (after 2 frames)\n",
                err.text());
    }

    @Test
    void frameCopyCopiesEveryFrameAsItIs() throws IOException {
        Path file = frames(dir.resolve("frames.bin"), 0);
        Path copy = dir.resolve("copy.bin");
        Output err = new Output();
        assertEquals(0, FrameCopy.copy(FileChannel.open(file), FileChannel.open(copy, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), err.stream));
        assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(copy));
        assertEquals("frame-copy: 3 frames, 49 bytes\n", err.text());
    }

    @Test
    void frameCopyStopsAtATruncatedFrameHavingCopiedTheOnesBefore() throws IOException {
        Path file = frames(dir.resolve("truncated.bin"), 6);
        Path copy = dir.resolve("copy.bin");
        Output err = new Output();
        assertEquals(FrameCopy.BAD_INPUT, FrameCopy.copy(FileChannel.open(file), FileChannel.open(copy,
                StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), err.stream));
        assertArrayEquals(Arrays.copyOf(Files.readAllBytes(file), 21), Files.readAllBytes(copy), "the two whole frames");
        assertEquals("frame-copy: truncated frame: body bytes present=14 of length=20 offset=21 (after 2 frames, copied)\n",
                err.text());
    }

    @Test
    void lineCountCountsEachFileAndTheirTotal() throws IOException {
        Path empty = Files.writeString(dir.resolve("empty.txt"), "");
        Path three = Files.writeString(dir.resolve("three.txt"), "a\nb\n\nno newline at the end");
        byte[] large = new byte[3 << 20]; // mapped, not read: ByteCounts maps files from 1 MiB
        Arrays.fill(large, (byte) '\n');
        Path mapped = Files.write(dir.resolve("large.txt"), large);
        Output out = new Output();
        LineCount.count(new String[] {empty.toString(), three.toString(), mapped.toString()},
                Channels.newChannel(InputStream.nullInputStream()), out.stream);
        assertEquals("0 " + empty + "\n3 " + three + "\n3145728 " + mapped + "\n3145731 total\n", out.text());
    }

    @Test
    void lineCountReadsStandardInputWithoutFiles() throws IOException {
        StringBuilder text = new StringBuilder();
        for (int i = 1; i <= 100_000; i++) {
            text.append(i).append('\n');
        }
        Output out = new Output();
        LineCount.count(new String[0], Channels.newChannel(new ByteArrayInputStream(
                text.toString().getBytes(StandardCharsets.UTF_8))), out.stream);
        assertEquals("100000\n", out.text());
    }

    /** Three frames into {@code file}, the last {@code cut} bytes short. */
    private static Path frames(Path file, int cut) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                FrameWriter writer = new FrameWriter(channel)) {
            writer.writeFrame(7, ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)));
            writer.writeFrame(-1, ByteBuffer.allocate(0));
            byte[] body = new byte[20];
            for (int i = 0; i < body.length; i++) {
                body[i] = (byte) i;
            }
            writer.writeFrame(1 << 16, body, 0, body.length);
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() - cut);
        }
        return file;
    }
}
