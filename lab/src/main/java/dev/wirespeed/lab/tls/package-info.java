/** The lab's TLS material: a self-signed identity made on the spot, and the command line's TLS options. */
package dev.wirespeed.lab.tls;
