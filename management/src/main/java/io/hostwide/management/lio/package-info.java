/**
 * LIO's configuration file, as rtslib-fb's {@code RTSRoot.save_to_file} writes it ({@code /etc/target/saveconfig.json},
 * what {@code targetcli saveconfig} produces), in and out: {@link LioImport} turns one into a hostwide
 * {@link io.hostwide.management.config.ServeConfig} and reports, one line per key, whatever has no hostwide
 * equivalent; {@link LioExport} writes a {@code ServeConfig} as rtslib would; {@link ConfigFiles} reads a file of
 * either format, telling them apart by their keys ({@link ConfigFormat}). Pure conversions: nothing here builds a
 * target core or opens a backstore.
 */
package io.hostwide.management.lio;
