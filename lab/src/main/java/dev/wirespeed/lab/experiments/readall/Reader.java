package dev.wirespeed.lab.experiments.readall;

import dev.wirespeed.contenders.ReadAllContender;
import dev.wirespeed.lab.result.Medium;
import dev.wirespeed.lab.result.Role;
import java.io.IOException;
import java.nio.file.Path;

/** A row of the experiment: one way of reading everything ({@link ReadAllContender}), as the tables name it. */
enum Reader {
    /** {@code InputStream.readAllBytes()} on a stream that does not override it. */
    JDK_STREAM("JDK readAllBytes (stream)", ReadAllContender.JDK_STREAM),
    /** {@code ReadAll.readAll(InputStream)}. */
    OURS_STREAM("wirespeed ReadAll (stream)", ReadAllContender.WIRESPEED_STREAM),
    /** {@code Files.readAllBytes(Path)}. */
    JDK_FILE("JDK Files.readAllBytes (file)", ReadAllContender.JDK_FILE),
    /** {@code ReadAll.readAll(Path)}. */
    OURS_FILE("wirespeed ReadAll (file)", ReadAllContender.WIRESPEED_FILE);

    private final String label;
    private final ReadAllContender contender;

    Reader(String label, ReadAllContender contender) {
        this.label = label;
        this.contender = contender;
    }

    String label() {
        return label;
    }

    Role role() {
        return contender.library() ? Role.LIBRARY : Role.JDK;
    }

    Medium medium() {
        return contender.readsStream() ? Medium.STREAM : Medium.FILE;
    }

    /** {@return the JDK's reader of a medium} */
    static Reader jdk(Medium medium) {
        return medium == Medium.STREAM ? JDK_STREAM : JDK_FILE;
    }

    /** {@return our reader of a medium} */
    static Reader ours(Medium medium) {
        return medium == Medium.STREAM ? OURS_STREAM : OURS_FILE;
    }

    /** {@return every byte of {@code data} (a stream over it) or of {@code file}, which holds the same bytes} */
    byte[] read(byte[] data, Path file) throws IOException {
        return contender.read(data, file);
    }
}
