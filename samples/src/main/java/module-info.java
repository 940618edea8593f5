/**
 * The samples, as a modular application declares the library: {@code requires dev.wirespeed.core} for
 * the readers, writers and loops, and {@code requires dev.wirespeed.linux} for the native module, whose
 * code needs {@code --enable-native-access=dev.wirespeed.linux} on the command line.
 */
module dev.wirespeed.samples {
    requires dev.wirespeed.core;
    requires dev.wirespeed.linux;
}
