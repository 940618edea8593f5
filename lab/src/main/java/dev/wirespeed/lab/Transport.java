package dev.wirespeed.lab;

/** How bytes travel between server and client, by {@code --transport} name. */
public enum Transport implements CliName {
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
        return cliName();
    }
}
