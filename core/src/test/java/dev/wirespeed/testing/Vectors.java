package dev.wirespeed.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The wire vectors (the project's copy of the protocol's examples, in test resources
 * {@code /vectors/}) and the outcome each must give: {@code frames=N} or {@code error=KIND@OFFSET}.
 */
public record Vectors(String file, String outcome) {
    /** {@return every vector listed in INDEX.tsv} */
    public static List<Vectors> all() {
        String index = new String(resource("INDEX.tsv"), StandardCharsets.UTF_8);
        List<Vectors> vectors = new ArrayList<>();
        for (String line : index.split("\n")) {
            String[] cells = line.strip().split("\t");
            if (cells.length == 2 && !cells[0].equals("file")) {
                vectors.add(new Vectors(cells[0], cells[1]));
            }
        }
        if (vectors.isEmpty()) {
            throw new IllegalStateException("no vectors in INDEX.tsv");
        }
        return vectors;
    }

    /**
     * {@return the names a fuzz corpus gives every vector: {@code vector-NAME} (the default limit) and
     * {@code vector-NAME-limit-100}}; each corpus must hold all of them
     */
    public static SortedSet<String> fuzzCorpusNames() {
        SortedSet<String> names = new TreeSet<>();
        for (Vectors vector : all()) {
            String name = "vector-" + vector.file().replace(".bin", "");
            names.add(name);
            names.add(name + "-limit-100");
        }
        return names;
    }

    /** {@return the vector's bytes} */
    public byte[] bytes() {
        return resource(file);
    }

    /** {@return true if the vector is a clean stream} */
    public boolean isClean() {
        return outcome.startsWith("frames=");
    }

    /** {@return the frame count of a clean vector} */
    public long frames() {
        return Long.parseLong(outcome.substring("frames=".length()));
    }

    /** {@return the error kind of a bad vector: negative-length, too-long, truncated-header, truncated-body} */
    public String errorKind() {
        return outcome.substring("error=".length(), outcome.indexOf('@'));
    }

    /** {@return the stream offset of a bad vector's offending frame} */
    public long errorOffset() {
        return Long.parseLong(outcome.substring(outcome.indexOf('@') + 1));
    }

    /**
     * {@return the message PROTOCOL.md asks a reader with the default 16 MiB limit to give for a bad
     * vector}, worked out from the vector's own bytes.
     */
    public String expectedMessage() {
        byte[] bytes = bytes();
        int at = (int) errorOffset();
        return switch (errorKind()) {
            case "negative-length" -> "corrupt frame: negative length: length=" + lengthAt(bytes, at)
                    + " offset=" + at;
            case "too-long" -> "frame too long: length=" + lengthAt(bytes, at)
                    + " maxFrameLength=16777216 offset=" + at;
            case "truncated-header" -> "truncated frame: header bytes present=" + (bytes.length - at)
                    + " of 8 offset=" + at;
            case "truncated-body" -> "truncated frame: body bytes present=" + (bytes.length - at - 8)
                    + " of length=" + lengthAt(bytes, at) + " offset=" + at;
            default -> throw new IllegalStateException("unknown error kind " + errorKind());
        };
    }

    /** {@return the number of whole frames before a bad vector's offending frame} */
    public long framesBeforeError() {
        byte[] bytes = bytes();
        long frames = 0;
        for (int at = 0; at < errorOffset(); at += 8 + lengthAt(bytes, at)) {
            frames++;
        }
        return frames;
    }

    private static int lengthAt(byte[] bytes, int at) {
        return java.nio.ByteBuffer.wrap(bytes, at + 4, 4).getInt();
    }

    @Override
    public String toString() {
        return file;
    }

    private static byte[] resource(String name) {
        try (InputStream in = Vectors.class.getResourceAsStream("/vectors/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource /vectors/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
