/* Unit tests of daemon/mountinfo.c: hand-written tables (by path, and by
 * mount ID and device as on a bind mount, in a chroot and a container),
 * then the live table checked against the kernel's own view (the mount
 * ID in fdinfo, statfs), which holds in a chroot where findmnt fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsmagic.h"
#include "mountinfo.h"

/* Octal escapes are written "\\040" here so the table holds \040. */
static const char table[] =
    "1 0 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
    "20 1 8:2 / /var rw,nosuid shared:2 master:7 - ext4 /dev/sda2 rw\n"
    "21 20 8:3 / /var/lib rw,noatime shared:3 - xfs /dev/sda3 rw,attr2\n"
    "22 1 0:30 / /mnt/my\\040disk rw,nodev - vfat /dev/sdb1 rw,fmask=0022\n"
    "23 1 0:31 / /mnt/back\\134slash ro - iso9660 /dev/sr0 ro\n"
    "24 1 0:32 /sub /mnt/tab\\011x rw - tmpfs my\\040tmp rw,size=1k\n"
    "25 1 0:33 net:[4026532000] /run/netns/a rw - nsfs nsfs rw\n";

static void
lookup_ok(const char *tab, const char *path, const struct mountinfo_dir *d,
    struct mountinfo *mi)
{
	char err[256] = "";

	if (mountinfo_lookup_in(tab, path, d, mi, err, sizeof(err)) != 0)
		fail_msg("lookup of %s failed: %s", path, err);
}

/* By the table alone. */
static void
expect_mount(const char *tab, const char *path, const char *mp,
    const char *fs_type, struct mountinfo *mi)
{
	lookup_ok(tab, path, NULL, mi);
	assert_string_equal(mi->mount_point, mp);
	assert_string_equal(mi->fs_type, fs_type);
}

static void
test_longest_prefix(void **state)
{
	struct mountinfo mi;

	(void)state;
	expect_mount(table, "/", "/", "ext4", &mi);
	assert_string_equal(mi.mount_source, "/dev/sda1");
	assert_string_equal(mi.mount_options, "rw,relatime");
	assert_string_equal(mi.super_options, "rw,errors=remount-ro");
	expect_mount(table, "/var/lib/x", "/var/lib", "xfs", &mi);
	assert_string_equal(mi.mount_source, "/dev/sda3");
	assert_string_equal(mi.mount_options, "rw,noatime");
	assert_string_equal(mi.super_options, "rw,attr2");
	expect_mount(table, "/var/lib", "/var/lib", "xfs", &mi);
	/* A prefix that is not a whole component is no mount. */
	expect_mount(table, "/variable", "/", "ext4", &mi);
	expect_mount(table, "/var/li", "/var", "ext4", &mi);
	expect_mount(table, "/var/libx/y", "/var", "ext4", &mi);
	expect_mount(table, "/var", "/var", "ext4", &mi);
	assert_string_equal(mi.mount_source, "/dev/sda2");
	assert_string_equal(mi.mount_options, "rw,nosuid");
	expect_mount(table, "/run/netns/a", "/run/netns/a", "nsfs", &mi);
}

static void
test_escapes(void **state)
{
	struct mountinfo mi;

	(void)state;
	expect_mount(table, "/mnt/my disk", "/mnt/my disk", "vfat", &mi);
	expect_mount(table, "/mnt/my disk/a b", "/mnt/my disk", "vfat", &mi);
	assert_string_equal(mi.mount_options, "rw,nodev");
	expect_mount(table, "/mnt/my", "/", "ext4", &mi);
	expect_mount(table, "/mnt/my\\040disk", "/", "ext4", &mi);
	expect_mount(table, "/mnt/back\\slash/f", "/mnt/back\\slash", "iso9660",
	    &mi);
	assert_string_equal(mi.mount_options, "ro");
	expect_mount(table, "/mnt/tab\tx", "/mnt/tab\tx", "tmpfs", &mi);
	assert_string_equal(mi.mount_source, "my tmp");
}

static void
test_stacked(void **state)
{
	static const char stacked[] =
	    "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
	    "30 1 8:16 / /data rw - ext4 /dev/sdb1 rw\n"
	    "33 30 8:32 / /data/sub rw - xfs /dev/sdc1 rw\n"
	    "31 30 0:41 / /data rw,nosuid - tmpfs tmpfs rw,size=1k\n"
	    "32 1 0:42 / /other rw - btrfs /dev/sdd rw\n";
	static const char reversed[] =
	    "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
	    "31 1 0:41 / /data rw,nosuid - tmpfs tmpfs rw,size=1k\n"
	    "30 31 8:16 / /data rw - ext4 /dev/sdb1 rw\n";
	struct mountinfo mi;

	(void)state;
	expect_mount(stacked, "/data/x", "/data", "tmpfs", &mi);
	assert_string_equal(mi.mount_options, "rw,nosuid");
	expect_mount(stacked, "/data", "/data", "tmpfs", &mi);
	expect_mount(stacked, "/data/sub/y", "/data/sub", "xfs", &mi);
	/* The last wins by position in the file, whatever the mount IDs. */
	expect_mount(reversed, "/data/x", "/data", "ext4", &mi);
}

static void
test_optional_fields(void **state)
{
	static const char tab[] =
	    "1 0 8:1 / / rw shared:1 master:2 propagate_from:3 unbindable - ext4 /dev/a rw\n"
	    "2 1 8:2 / /none rw - xfs /dev/b rw\n"
	    "3 1 8:3 / /one rw shared:1 - btrfs /dev/c rw,ssd\n"
	    /* An empty mount source prints as two spaces. */
	    "4 1 0:4 / /empty rw - tmpfs  rw,size=2k\n";
	struct mountinfo mi;

	(void)state;
	expect_mount(tab, "/x", "/", "ext4", &mi);
	assert_string_equal(mi.mount_source, "/dev/a");
	assert_string_equal(mi.super_options, "rw");
	expect_mount(tab, "/none", "/none", "xfs", &mi);
	assert_string_equal(mi.mount_source, "/dev/b");
	expect_mount(tab, "/one/z", "/one", "btrfs", &mi);
	assert_string_equal(mi.super_options, "rw,ssd");
	expect_mount(tab, "/empty", "/empty", "tmpfs", &mi);
	assert_string_equal(mi.mount_source, "");
	assert_string_equal(mi.super_options, "rw,size=2k");
}

static void
test_malformed(void **state)
{
	/* Every bad line names a mount point a lookup below would pick; the
	 * last good line has no trailing newline. */
	static const char tab[] =
	    "garbage\n"
	    "\n"
	    "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
	    "x 1 0:40 / /bad1 rw - ext4 a rw\n"
	    "40 1 0:40 / /bad2 rw shared:1 ext4 a rw\n"
	    "41 1 0:41 / /bad3 rw - ext4 a\n"
	    "42 1 040 / /bad4 rw - ext4 a rw\n"
	    "43 1 0:43 / bad5 rw - ext4 a rw\n"
	    "44 1 0:44 / /bad6\n"
	    "45 1 0:45 / /bad7 rw -  a rw\n"
	    "46 1 0:46 / /bad\\000 rw - ext4 a rw\n"
	    "47 1 0:47 / /good rw - btrfs /dev/x rw";
	static const char *const bad[] = {
		"/bad1", "/bad2", "/bad3", "/bad4", "/bad6", "/bad7", "/bad",
	};
	struct mountinfo mi;
	char err[256] = "";

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_mount(tab, bad[i], "/", "ext4", &mi);
	expect_mount(tab, "/good/y", "/good", "btrfs", &mi);
	assert_string_equal(mi.super_options, "rw");
	/* No good line at all: an error naming the path. */
	assert_int_equal(mountinfo_lookup_in("garbage\n1 2 3\n", "/srv/x", NULL,
	    &mi, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/srv/x"));
	assert_int_equal(mountinfo_lookup_in("", "/", NULL, &mi, err,
	    sizeof(err)), -1);
	assert_int_equal(mountinfo_lookup_in(table, "relative", NULL, &mi, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "relative"));
}

/* Lines longer than any fixed buffer: kilobytes of overlayfs options, a
 * mount point past PATH_MAX, a source too long to hold. */
static void
test_long_lines(void **state)
{
	const size_t big = 20000;
	char *tab = malloc(4 * big), *p = tab, *path = malloc(big + 1);
	struct mountinfo mi;
	char err[256] = "", *opt, *save = NULL;
	size_t len;

	(void)state;
	assert_non_null(tab);
	assert_non_null(path);
	p += sprintf(p, "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n");
	p += sprintf(p, "2 1 0:2 / /ovl rw - overlay overlay rw");
	for (int i = 0; i < 1000; i++)
		p += sprintf(p, ",o%d=v", i);
	p += sprintf(p, "\n3 1 0:3 / /");
	memset(p, 'm', big);
	p += big;
	p += sprintf(p, " rw - xfs /dev/m rw\n4 1 0:4 / /src rw - nfs ");
	memset(p, 's', big);
	p += big;
	sprintf(p, " rw\n");

	expect_mount(tab, "/ovl/x", "/ovl", "overlay", &mi);
	len = strlen(mi.super_options);
	assert_true(len > 900 && len < sizeof(mi.super_options));
	/* Cut after a whole option: the list is a prefix of the original
	 * that ends where an option ended. */
	assert_memory_equal(mi.super_options, "rw,o0=v,o1=v", 12);
	assert_true(strstr(tab, mi.super_options) != NULL);
	for (opt = strtok_r(mi.super_options, ",", &save); opt != NULL;
	    opt = strtok_r(NULL, ",", &save))
		assert_true(strcmp(opt, "rw") == 0 || strchr(opt, '=') != NULL);
	assert_true(mi.super_options[len - 1] == 'v');

	/* The over-long mount point is skipped whole, not matched cut. */
	memset(path, 'm', big);
	path[0] = '/';
	path[big] = '\0';
	expect_mount(tab, path, "/", "ext4", &mi);
	path[5000] = '\0';
	expect_mount(tab, path, "/", "ext4", &mi);
	assert_int_equal(mountinfo_lookup_in(tab, "/src/f", NULL, &mi, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "/src/f"));
	free(path);
	free(tab);
}

static void
test_options(void **state)
{
	struct mountinfo mi;
	char out[64];

	(void)state;
	memset(&mi, 0, sizeof(mi));
	strcpy(mi.mount_options, "rw,noatime,nodev");
	strcpy(mi.super_options, "rw,data=writeback");
	mountinfo_options(&mi, out, sizeof(out));
	assert_string_equal(out, "rw,noatime,nodev,data=writeback");

	/* The mount's ro is kept, the superblock's rw is not added. */
	strcpy(mi.mount_options, "ro,relatime");
	strcpy(mi.super_options, "rw,errors=remount-ro");
	mountinfo_options(&mi, out, sizeof(out));
	assert_string_equal(out, "ro,relatime,errors=remount-ro");

	strcpy(mi.mount_options, "rw,nosuid,nosuid,,nodev");
	strcpy(mi.super_options, "nodev,size=1k,size=1k,ro,mode=755");
	mountinfo_options(&mi, out, sizeof(out));
	assert_string_equal(out, "rw,nosuid,nodev,size=1k,mode=755");

	strcpy(mi.mount_options, "rw");
	mi.super_options[0] = '\0';
	mountinfo_options(&mi, out, sizeof(out));
	assert_string_equal(out, "rw");

	/* Too small: ends at the last whole option. */
	strcpy(mi.mount_options, "rw,noatime,nodev");
	strcpy(mi.super_options, "rw,data=writeback");
	mountinfo_options(&mi, out, 10);
	assert_string_equal(out, "rw");
	mountinfo_options(&mi, out, 11);
	assert_string_equal(out, "rw,noatime");
	mountinfo_options(&mi, out, 17);
	assert_string_equal(out, "rw,noatime,nodev");
	mountinfo_options(&mi, out, 1);
	assert_string_equal(out, "");
	out[0] = 'x';
	mountinfo_options(&mi, out, 0);
	assert_int_equal(out[0], 'x');
}

/* A unit's ReadWritePaths=/srv/rrd-stress: the directory bound onto
 * itself inside ProtectSystem=strict's read-only root, and a bind of a
 * tmpfs's subdirectory elsewhere. */
static const char binds[] =
    "27 1 254:0 / / ro,relatime - ext4 /dev/vda rw,discard\n"
    "22 27 0:21 / /proc rw - proc proc rw\n"
    "40 27 0:39 / /mnt/t rw,nodev - tmpfs scratch rw,size=1k\n"
    "50 27 254:0 /srv/rrd-stress /srv/rrd-stress rw,nosuid shared:9 - ext4 /dev/vda rw,discard\n"
    "51 27 0:39 /a/b /data rw - tmpfs scratch rw,size=1k\n";

static const struct mountinfo_dir vda = {
	.mnt_id = 50, .have_dev = true, .dev_major = 254, .dev_minor = 0,
	.fs_magic = 0xef53, .flags = 0,
};

static void
test_bind(void **state)
{
	struct mountinfo_dir d = vda;
	struct mountinfo mi;
	char opts[256];

	(void)state;
	lookup_ok(binds, "/srv/rrd-stress/x", &d, &mi);
	assert_int_equal(mi.from, MOUNTINFO_FROM_MOUNT);
	assert_string_equal(mountinfo_from_name(mi.from), "mount");
	assert_string_equal(mi.fs_type, "ext4");
	assert_string_equal(mi.mount_source, "/dev/vda");
	/* The filesystem's mount, not the unit's bind of it... */
	assert_string_equal(mi.mount_point, "/");
	/* ...which is where the directory is reached, with its options. */
	assert_string_equal(mi.seen_at, "/srv/rrd-stress");
	assert_string_equal(mi.bind_root, "/srv/rrd-stress");
	mountinfo_options(&mi, opts, sizeof(opts));
	assert_string_equal(opts, "rw,nosuid,discard");
	assert_int_equal(mi.fs_magic, 0xef53);

	/* A subdirectory of a tmpfs bound elsewhere. */
	d.mnt_id = 51;
	d.dev_major = 0;
	d.dev_minor = 39;
	lookup_ok(binds, "/data/rrd", &d, &mi);
	assert_string_equal(mi.mount_point, "/mnt/t");
	assert_string_equal(mi.seen_at, "/data");
	assert_string_equal(mi.bind_root, "/a/b");
	assert_string_equal(mi.mount_source, "scratch");
	assert_string_equal(mi.mount_options, "rw");

	/* Without a mount ID: the path among the device's lines. */
	d.mnt_id = -1;
	lookup_ok(binds, "/data/rrd", &d, &mi);
	assert_string_equal(mi.seen_at, "/data");
	d = vda;
	d.mnt_id = -1;
	lookup_ok(binds, "/srv/rrd-stress", &d, &mi);
	assert_string_equal(mi.seen_at, "/srv/rrd-stress");
	assert_string_equal(mi.mount_point, "/");
	/* Table only: the path, as before. */
	lookup_ok(binds, "/srv/rrd-stress/y", NULL, &mi);
	assert_string_equal(mi.seen_at, "/srv/rrd-stress");
	assert_int_equal(mi.fs_magic, 0);
}

/* A container: the root is a bind of a directory of the host's disk, a
 * volume another; the filesystem's own mount is not visible.  And btrfs,
 * whose st_dev (a subvolume's) is not the table's: the mount ID still
 * names the line. */
static void
test_container(void **state)
{
	static const char tab[] =
	    "300 200 254:0 /var/lib/machines/c / rw,relatime - ext4 /dev/vda rw\n"
	    "301 300 0:21 / /proc rw - proc proc rw\n"
	    "302 300 254:0 /var/lib/vol/_data /data rw,noatime - ext4 /dev/vda rw\n"
	    "303 300 0:45 /@home /home rw - btrfs /dev/sdb2 rw,subvol=/@home\n";
	struct mountinfo_dir d = vda;
	struct mountinfo mi;

	(void)state;
	d.mnt_id = 302;
	lookup_ok(tab, "/data/x", &d, &mi);
	assert_string_equal(mi.seen_at, "/data");
	assert_string_equal(mi.bind_root, "/var/lib/vol/_data");
	/* No root holds /var/lib/vol/_data but its own. */
	assert_string_equal(mi.mount_point, "/data");
	assert_string_equal(mi.mount_options, "rw,noatime");
	d.mnt_id = 300;
	lookup_ok(tab, "/srv", &d, &mi);
	assert_string_equal(mi.mount_point, "/");
	assert_string_equal(mi.bind_root, "/var/lib/machines/c");

	d.mnt_id = 303;
	d.dev_major = 0;
	d.dev_minor = 52;
	d.fs_magic = 0x9123683e;
	lookup_ok(tab, "/home/u", &d, &mi);
	assert_int_equal(mi.from, MOUNTINFO_FROM_MOUNT);
	assert_string_equal(mi.fs_type, "btrfs");
	assert_string_equal(mi.mount_point, "/home");
	assert_string_equal(mi.bind_root, "/@home");
}

/* A chroot into a directory that is no mount point: the kernel shows no
 * line for the mount of its root, paths are relative to it. */
static void
test_chroot(void **state)
{
	static const char bare[] =
	    "70 27 0:21 / /proc rw,nosuid - proc proc rw\n"
	    "71 27 0:6 / /dev rw - devtmpfs udev rw\n";
	static const char other[] =
	    "70 27 0:21 / /proc rw,nosuid - proc proc rw\n"
	    "72 27 254:0 /usr /usr ro - ext4 /dev/vda rw,discard\n";
	static const char whole[] =
	    "72 27 254:0 /usr /usr ro - ext4 /dev/vda rw,discard\n"
	    "73 27 254:0 / /host ro - ext4 /dev/vda rw,discard\n";
	struct mountinfo_dir d = vda;
	struct mountinfo mi;
	char err[256] = "", opts[256];

	(void)state;
	d.mnt_id = 27;	/* the host's root mount: not in the table */
	d.flags = ST_NOSUID | ST_NOATIME;
	lookup_ok(bare, "/srv/x", &d, &mi);
	assert_int_equal(mi.from, MOUNTINFO_FROM_STATFS);
	assert_string_equal(mountinfo_from_name(mi.from), "statfs");
	assert_string_equal(mi.fs_type, "ext2/ext3/ext4");
	assert_int_equal(mi.fs_magic, 0xef53);
	assert_string_equal(mi.mount_source, "");
	assert_string_equal(mi.mount_point, "");
	assert_string_equal(mi.seen_at, "");
	mountinfo_options(&mi, opts, sizeof(opts));
	assert_string_equal(opts, "rw,nosuid,noatime");
	/* Not the prefix "/" of another device's line either. */
	lookup_ok("74 27 0:50 / / rw - tmpfs t rw\n", "/srv/x", &d, &mi);
	assert_int_equal(mi.from, MOUNTINFO_FROM_STATFS);

	/* Another mount of the device: type and source, per-superblock
	 * options; the rest from statfs. */
	d.flags = ST_RDONLY;
	lookup_ok(other, "/srv/x", &d, &mi);
	assert_int_equal(mi.from, MOUNTINFO_FROM_DEVICE);
	assert_string_equal(mountinfo_from_name(mi.from), "device");
	assert_string_equal(mi.fs_type, "ext4");
	assert_string_equal(mi.mount_source, "/dev/vda");
	assert_string_equal(mi.mount_point, "");	/* /usr is not it */
	assert_string_equal(mi.seen_at, "");
	mountinfo_options(&mi, opts, sizeof(opts));
	assert_string_equal(opts, "ro,discard");
	lookup_ok(whole, "/srv/x", &d, &mi);
	assert_string_equal(mi.mount_point, "/host");

	/* An unknown magic: no name, the magic kept. */
	d.fs_magic = 0x12345678;
	lookup_ok(bare, "/srv/x", &d, &mi);
	assert_string_equal(mi.fs_type, "");
	assert_int_equal(mi.fs_magic, 0x12345678);
	assert_null(fsmagic_name(0x12345678));
	assert_string_equal(fsmagic_name(0x01021994), "tmpfs");
	assert_string_equal(fsmagic_name(0x58465342), "xfs");

	/* The own line unusable: what statfs says, and why in err. */
	d.mnt_id = 75;
	d.fs_magic = 0x6969;
	assert_int_equal(mountinfo_lookup_in("75 1 0:9 / /n rw - nfs s\\000 rw\n",
	    "/n/x", &d, &mi, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "/n/x"));
	assert_int_equal(mi.from, MOUNTINFO_FROM_STATFS);
	assert_string_equal(mi.fs_type, "nfs");
}

/* The kernel's own view of a directory: its mount's line by the mount ID
 * in fdinfo (empty when not visible, as for a chroot's root), statfs. */
static void
kernel_view(const char *dir, char *line, size_t len, unsigned long *magic)
{
	char path[64], buf[256];
	struct statfs sf;
	long id = -1;
	FILE *fp;
	int fd;

	assert_true((fd = open(dir, O_RDONLY | O_DIRECTORY)) != -1);
	assert_int_equal(fstatfs(fd, &sf), 0);
	*magic = (unsigned long)sf.f_type & 0xffffffffUL;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	assert_non_null(fp = fopen(path, "r"));
	while (fgets(buf, sizeof(buf), fp) != NULL)
		if (sscanf(buf, "mnt_id: %ld", &id) == 1)
			break;
	fclose(fp);
	close(fd);
	assert_true(id >= 0);
	line[0] = '\0';
	assert_non_null(fp = fopen("/proc/self/mountinfo", "r"));
	while (fgets(line, (int)len, fp) != NULL)
		if (strtol(line, NULL, 10) == id)
			break;
		else
			line[0] = '\0';
	fclose(fp);
}

static void
test_live(void **state)
{
	char dir[] = "/tmp/mountinfo-test.XXXXXX";
	char link[64], via[80], line[8192], root[4096], mp[4096], type[64];
	char err[256] = "", *dash;
	unsigned long magic;
	struct mountinfo mi;

	(void)state;
	if (mountinfo_lookup("/proc", &mi, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_string_equal(mi.fs_type, "proc");
	assert_string_equal(mi.mount_point, "/proc");

	assert_non_null(mkdtemp(dir));
	if (mountinfo_lookup(dir, &mi, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	kernel_view(dir, line, sizeof(line), &magic);
	assert_int_equal(mi.fs_magic, magic);
	if (line[0] == '\0') {
		/* A chroot's root that is no mount point. */
		assert_int_not_equal(mi.from, MOUNTINFO_FROM_MOUNT);
		if (mi.from == MOUNTINFO_FROM_STATFS)
			assert_string_equal(mi.fs_type, fsmagic_name(magic) ?
			    fsmagic_name(magic) : "");
	} else {
		/* The test's paths hold no octal escapes. */
		assert_int_equal(sscanf(line, "%*d %*d %*s %4095s %4095s",
		    root, mp), 2);
		assert_non_null(dash = strstr(line, " - "));
		assert_int_equal(sscanf(dash, " - %63s", type), 1);
		assert_int_equal(mi.from, MOUNTINFO_FROM_MOUNT);
		assert_string_equal(mi.seen_at, mp);
		assert_string_equal(mi.bind_root, root);
		assert_string_equal(mi.fs_type, type);
	}

	/* The path is resolved first: a symlink to /proc is on proc. */
	snprintf(link, sizeof(link), "%s/l", dir);
	assert_int_equal(symlink("/proc", link), 0);
	snprintf(via, sizeof(via), "%s/self", link);
	if (mountinfo_lookup(via, &mi, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_string_equal(mi.fs_type, "proc");
	unlink(link);

	assert_int_equal(mountinfo_lookup(link, &mi, err, sizeof(err)), -1);
	assert_non_null(strstr(err, link));
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longest_prefix),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_stacked),
		cmocka_unit_test(test_optional_fields),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_bind),
		cmocka_unit_test(test_container),
		cmocka_unit_test(test_chroot),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
