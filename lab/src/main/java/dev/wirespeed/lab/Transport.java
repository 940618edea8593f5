package dev.wirespeed.lab;

/** How bytes travel between server and client. */
public enum Transport {
    /** TCP over loopback or a network. */
    TCP,
    /** Unix domain stream sockets. */
    UNIX,
    /** The server writes its standard output (a pipe, for the client's standard input). */
    STDOUT,
    /** The client reads its standard input. */
    STDIN,
    /** The client reads a file. */
    FILE;

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
