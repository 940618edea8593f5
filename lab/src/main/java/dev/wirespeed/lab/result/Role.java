package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Whose code a measured case runs: tables and charts colour and order rows by it. */
public enum Role {
    /** One of the articles' strategies (or their published formula), as the article wrote it. */
    ARTICLE,
    /** The wirespeed library, whoever feeds it (a row read from the C writer is still the library). */
    LIBRARY,
    /** The JDK's own API that the library is compared with (for example {@code readAllBytes}). */
    JDK,
    /** A peer a user would pick instead of the library (Netty). */
    PEER,
    /** A ceiling: a small C program, {@code iperf3} or {@code wc -l} doing the same job. */
    CEILING;

    /** {@return the lower-case name results.json uses} */
    @JsonValue
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
