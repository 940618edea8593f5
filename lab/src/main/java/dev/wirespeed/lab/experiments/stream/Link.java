package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.result.Medium;
import java.util.Locale;

/** Where the stream experiments' bytes travel. */
public enum Link {
    /** TCP loopback: the first article. */
    TCP(Medium.TCP, "TCP loopback"),
    /** A Unix domain stream socket. */
    UNIX(Medium.UNIX, "Unix domain socket"),
    /** A pipe from the server's standard output to the client's standard input: the second article. */
    PIPE(Medium.PIPE, "pipe (server stdout | client stdin), 64 KiB unless said");

    private final Medium medium;
    private final String title;

    Link(Medium medium, String title) {
        this.medium = medium;
        this.title = title;
    }

    /** {@return the experiment's name, and the client's {@code --transport} for sockets} */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@return the medium of its measurements} */
    public Medium medium() {
        return medium;
    }

    /** {@return how its table names it} */
    public String title() {
        return title;
    }
}
