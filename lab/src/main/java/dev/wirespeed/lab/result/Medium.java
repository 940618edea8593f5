package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** What the bytes of a measurement travel through. */
public enum Medium {
    /** TCP, loopback unless the experiment says otherwise. */
    TCP,
    /** A Unix domain stream socket. */
    UNIX,
    /** A pipe from one process's standard output to another's standard input. */
    PIPE,
    /** Memory two processes map (a file under {@code /dev/shm}, or Aeron's log buffers): no system call per frame. */
    SHM,
    /** A file, cached in memory. */
    FILE,
    /** An {@code InputStream} of unknown size over bytes in memory. */
    STREAM;

    /** {@return the lower-case name results and tables use} */
    @JsonValue
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return id();
    }
}
