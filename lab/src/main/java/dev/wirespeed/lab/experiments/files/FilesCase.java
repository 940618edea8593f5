package dev.wirespeed.lab.experiments.files;

/**
 * A case of the files experiment: one counter on one file.
 *
 * @param input which file
 * @param counter how its newlines are counted
 */
record FilesCase(Input input, Counter counter) {
    /** The two files: the article's CSV and a large file of the same lines. */
    enum Input {
        /** The article's CSV: 10,000 lines of {@code 0,1,...,9}, 200,000 bytes. */
        CSV,
        /** The same lines, 32 MiB quick, 128 MiB by default, 1 GiB with {@code --full}. */
        LARGE
    }
}
