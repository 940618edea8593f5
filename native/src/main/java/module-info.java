/**
 * wirespeed native: Linux system calls through the Foreign Function and Memory API, with
 * {@code errno} captured on every call. Needs {@code --enable-native-access=dev.wirespeed.linux}
 * (or {@code ALL-UNNAMED} on the class path) to run without a warning.
 */
module dev.wirespeed.linux {
    requires transitive dev.wirespeed.core;
    exports dev.wirespeed.linux;

    provides dev.wirespeed.io.spi.FileReadProvider with dev.wirespeed.linux.LinuxFileReads;
}
