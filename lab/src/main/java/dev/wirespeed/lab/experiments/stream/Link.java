package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.result.Medium;
import java.util.Locale;

/** Where the stream experiments' bytes travel. */
public enum Link {
    /** TCP loopback: the first article. */
    TCP(Medium.TCP, "TCP loopback", Transport.TCP, Transport.TCP),
    /** A Unix domain stream socket. */
    UNIX(Medium.UNIX, "Unix domain socket", Transport.UNIX, Transport.UNIX),
    /** A pipe from the server's standard output to the client's standard input: the second article. */
    PIPE(Medium.PIPE, "pipe (server stdout | client stdin), 64 KiB unless said", Transport.STDOUT, Transport.STDIN);

    private final Medium medium;
    private final String title;
    private final Transport server;
    private final Transport client;

    Link(Medium medium, String title, Transport server, Transport client) {
        this.medium = medium;
        this.title = title;
        this.server = server;
        this.client = client;
    }

    /** {@return the server's {@code --transport}} */
    public Transport server() {
        return server;
    }

    /** {@return the client's {@code --transport}} */
    public Transport client() {
        return client;
    }

    /** {@return the experiment's name} */
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
