/* SPDX-License-Identifier: MIT */
/* The output set: see outputs.h for the contract. */
#define _XOPEN_SOURCE 700 /* realpath */
#define _DEFAULT_SOURCE   /* flock */
#include "outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define RB_OUTPUTS_MAX 24
/* Every temporary has this name in its target's folder, whatever the target is called, so a
 * name that fits NAME_MAX never fails on its temporary's suffix. */
#define TMP_TEMPLATE ".rb-XXXXXX"
#define TMP_SLOTS 48

/* A file's identity: device and inode when it exists, and always its real path (the real path
 * of its folder, or of the nearest existing ancestor, plus the rest of the name). */
typedef struct file_id {
    int exists;
    dev_t dev;
    ino_t ino;
    char real[PATH_MAX + NAME_MAX + 2];
} file_id;

typedef struct in_file {
    char path[PATH_MAX], what[64];
    int replaceable;
    file_id id;
} in_file;

typedef struct out_file {
    char path[PATH_MAX];   /* as given */
    char target[PATH_MAX]; /* the file replaced: path, or the target of the link it names */
    char what[64];
    unsigned flags;
    file_id id;
    mode_t mode;               /* of the file replaced; a new file's from the umask */
    int slot;                  /* its temporary in the process-wide table; -1: not staged */
    int writing;               /* its temporary is open (rb_outputs_open): not staged yet */
    char made_below[PATH_MAX]; /* MAKE_DIRS: the ancestor under which folders were made */
} out_file;

struct rb_outputs {
    int through_links, checked, n_in, cap_in, n_out;
    in_file *in; /* as many as a command reads (history: every run of a folder) */
    out_file out[RB_OUTPUTS_MAX];
};

/* ---- the temporaries of the process, for a signal handler ---- */

static char tmp_paths[TMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t tmp_used[TMP_SLOTS];

static int tmp_claim(void)
{
    for (int i = 0; i < TMP_SLOTS; i++)
        if (!tmp_used[i])
            return i;
    return -1;
}

void rb_outputs_remove_temporaries(void)
{
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_used[i])
            unlink(tmp_paths[i]);
}

static void tmp_release(int slot, int remove)
{
    if (slot < 0)
        return;
    if (remove)
        unlink(tmp_paths[slot]);
    tmp_used[slot] = 0;
}

/* ---- paths ---- */

/* The folder of path: "." for a bare name, "/" for "/x". */
static void dir_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        rb_fmt(dir, size, ".");
    else if (slash == path)
        rb_fmt(dir, size, "/");
    else
        rb_fmt(dir, size, "%.*s", (int)(slash - path), path);
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Every component of path fits NAME_MAX and the whole PATH_MAX, room for a temporary's name
 * beside the last one included. */
static int name_fits(const char *path, char *err, size_t err_size)
{
    size_t len = strlen(path);
    if (len + sizeof TMP_TEMPLATE + 1 >= PATH_MAX) {
        rb_fmt(err, err_size, "%.60s...: the path is %zu bytes long; at most %d", path, len,
               PATH_MAX - (int)sizeof TMP_TEMPLATE - 2);
        return -1;
    }
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n > NAME_MAX) {
            rb_fmt(err, err_size, "%.60s...: a name of %zu bytes in the path; at most %d", path, n,
                   NAME_MAX);
            return -1;
        }
        p += n;
        p += *p == '/';
    }
    return 0;
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a folder"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISLNK(m)  ? "a symbolic link"
                         : "not a regular file";
}

/* The nearest existing ancestor of dir (dir itself when it exists) into at; 0, or -1 when even
 * "." or "/" cannot be read. */
static int existing_ancestor(const char *dir, char *at, size_t size)
{
    struct stat st;
    rb_fmt(at, size, "%s", dir[0] ? dir : ".");
    while (stat(at, &st) != 0) {
        char *slash = strrchr(at, '/');
        if (!slash)
            rb_fmt(at, size, ".");
        else if (slash == at)
            slash[1] = '\0';
        else
            *slash = '\0';
        if (!slash || !strcmp(at, "/"))
            return stat(at, &st);
    }
    return 0;
}

/* The identity of path (see file_id): follow links when follow. */
static void identify(const char *path, int follow, file_id *id)
{
    struct stat st;
    char dir[PATH_MAX], at[PATH_MAX], real[PATH_MAX];
    memset(id, 0, sizeof *id);
    if ((follow ? stat(path, &st) : lstat(path, &st)) == 0) {
        id->exists = 1;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
    }
    if (follow && id->exists && realpath(path, real)) {
        rb_fmt(id->real, sizeof id->real, "%s", real);
        return;
    }
    dir_of(path, dir, sizeof dir);
    if (existing_ancestor(dir, at, sizeof at) != 0 || !realpath(at, real)) {
        rb_fmt(id->real, sizeof id->real, "%s", path); /* as given: still a distinct name */
        return;
    }
    /* the ancestor's real path, then the folders not made yet, then the name */
    size_t n = strlen(at);
    int prefix = !strncmp(dir, at, n) && (dir[n] == '/' || dir[n] == '\0');
    rb_fmt(id->real, sizeof id->real, "%s%s%s/%s", real, prefix ? "" : "/", prefix ? dir + n : dir,
           base_of(path));
}

static int same_file(const file_id *a, const file_id *b)
{
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return !strcmp(a->real, b->real);
}

/* ---- the set ---- */

rb_outputs *rb_outputs_new(int through_links)
{
    rb_outputs *o = calloc(1, sizeof *o);
    if (o)
        o->through_links = through_links;
    return o;
}

static void remove_made_dirs(out_file *f)
{
    char dir[PATH_MAX];
    if (!f->made_below[0])
        return;
    dir_of(f->target, dir, sizeof dir);
    /* the folders made for this output, deepest first; a folder not empty stays */
    while (strlen(dir) > strlen(f->made_below) && rmdir(dir) == 0) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        *slash = '\0';
    }
    f->made_below[0] = '\0';
}

void rb_outputs_drop_from(rb_outputs *o, int index)
{
    for (int i = index; i < o->n_out; i++) {
        tmp_release(o->out[i].slot, 1);
        o->out[i].slot = -1;
        remove_made_dirs(&o->out[i]);
    }
    if (index < o->n_out)
        o->n_out = index < 0 ? 0 : index;
}

void rb_outputs_free(rb_outputs *o)
{
    if (!o)
        return;
    rb_outputs_drop_from(o, 0);
    free(o->in);
    free(o);
}

int rb_outputs_input(rb_outputs *o, const char *path, const char *what, int replaceable)
{
    if (!path)
        return -1;
    if (o->n_in == o->cap_in) {
        int cap = o->cap_in ? 2 * o->cap_in : 4;
        in_file *more = realloc(o->in, (size_t)cap * sizeof *more);
        if (!more)
            return -1;
        o->in = more;
        o->cap_in = cap;
    }
    in_file *f = &o->in[o->n_in++];
    rb_fmt(f->path, sizeof f->path, "%s", path);
    rb_fmt(f->what, sizeof f->what, "%s", what ? what : "");
    f->replaceable = replaceable;
    o->checked = 0;
    return 0;
}

int rb_outputs_add(rb_outputs *o, const char *path, const char *what, unsigned flags)
{
    if (o->n_out == RB_OUTPUTS_MAX || !path)
        return -1;
    out_file *f = &o->out[o->n_out];
    memset(f, 0, sizeof *f);
    rb_fmt(f->path, sizeof f->path, "%s", path);
    rb_fmt(f->what, sizeof f->what, "%s", what ? what : "");
    f->flags = flags;
    f->slot = -1;
    o->checked = 0;
    return o->n_out++;
}

int rb_outputs_count(const rb_outputs *o)
{
    return o->n_out;
}

const char *rb_outputs_path(const rb_outputs *o, int index)
{
    return index >= 0 && index < o->n_out ? o->out[index].path : NULL;
}

/* "--json out.json" or "out.json", for messages. */
static void label(char *buf, size_t size, const char *what, const char *path)
{
    rb_fmt(buf, size, "%s%s%s", what, what[0] ? " " : "", path);
}

/* Files can be created in dir (an existing folder): a probe made with mkstemp and removed. */
static int can_create_in(const char *dir, const char *who, char *err, size_t err_size)
{
    char probe[PATH_MAX + 16];
    if (rb_fmt_fits(probe, sizeof probe, "%s/" TMP_TEMPLATE, dir) != 0) {
        rb_fmt(err, err_size, "%s: the path is too long", who);
        return -1;
    }
    int fd = mkstemp(probe);
    if (fd < 0) {
        /* procfs and sysfs answer ENOENT for a folder that is there */
        rb_fmt(err, err_size, "%s: cannot write there: no file can be made in %s (%s)", who, dir,
               errno == ENOENT ? "its file system does not allow it" : strerror(errno));
        return -1;
    }
    close(fd);
    unlink(probe);
    return 0;
}

int rb_dir_writable(const char *dir, char *err, size_t err_size)
{
    char at[PATH_MAX];
    struct stat st;
    if (existing_ancestor(dir, at, sizeof at) != 0 || stat(at, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rb_fmt(err, err_size, "%s: cannot write there: %s is not a folder", dir, at);
        return -1;
    }
    return can_create_in(at, dir, err, err_size);
}

/* The folder of f->target: exists and takes files, or (MAKE_DIRS) its nearest existing
 * ancestor is a folder that does. */
static int check_folder(const out_file *f, const char *who, char *err, size_t err_size)
{
    char dir[PATH_MAX], at[PATH_MAX];
    struct stat st;
    dir_of(f->target, dir, sizeof dir);
    if (stat(dir, &st) != 0) {
        if (!(f->flags & RB_OUT_MAKE_DIRS)) {
            rb_fmt(err, err_size, "%s: cannot write there: the folder %s does not exist", who, dir);
            return -1;
        }
        if (existing_ancestor(dir, at, sizeof at) != 0 || stat(at, &st) != 0) {
            rb_fmt(err, err_size, "%s: cannot write there: no folder of the path exists", who);
            return -1;
        }
        rb_fmt(dir, sizeof dir, "%s", at);
    }
    if (!S_ISDIR(st.st_mode)) {
        rb_fmt(err, err_size, "%s: cannot write there: %s is not a folder", who, dir);
        return -1;
    }
    return can_create_in(dir, who, err, err_size);
}

/* One output on its own: name, what is at the path, its folder; its identity and mode. */
static int check_one(rb_outputs *o, out_file *f, char *err, size_t err_size)
{
    char who[PATH_MAX + 80];
    struct stat st;
    label(who, sizeof who, f->what, f->path);
    size_t len = strlen(f->path);
    if (len == 0 || f->path[len - 1] == '/') {
        rb_fmt(err, err_size, "%s: is a folder, not a file name", who);
        return -1;
    }
    if (name_fits(f->path, err, err_size) != 0)
        return -1;
    rb_fmt(f->target, sizeof f->target, "%s", f->path);
    if (lstat(f->path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!o->through_links) {
            rb_fmt(err, err_size,
                   "%s: is a symbolic link: not replaced (--write-through-links writes to the "
                   "file it names)",
                   who);
            return -1;
        }
        if (!realpath(f->path, f->target) || stat(f->target, &st) != 0) {
            rb_fmt(err, err_size, "%s: a symbolic link to nothing (%s)", who, strerror(errno));
            return -1;
        }
        if (name_fits(f->target, err, err_size) != 0)
            return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    f->mode = 0666 & ~mask;
    if (lstat(f->target, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            rb_fmt(err, err_size, "%s: is %s, not a regular file: not replaced", who,
                   kind_of(st.st_mode));
            return -1;
        }
        f->mode = st.st_mode & 07777;
    }
    if (check_folder(f, who, err, err_size) != 0)
        return -1;
    identify(f->target, 1, &f->id);
    return 0;
}

int rb_outputs_check(rb_outputs *o, char *err, size_t err_size)
{
    char a[PATH_MAX + 80], b[PATH_MAX + 80];
    o->checked = 0;
    for (int i = 0; i < o->n_in; i++)
        identify(o->in[i].path, 1, &o->in[i].id);
    for (int i = 0; i < o->n_out; i++) {
        out_file *f = &o->out[i];
        if (check_one(o, f, err, err_size) != 0)
            return -1;
        label(a, sizeof a, f->what, f->path);
        for (int k = 0; k < o->n_in; k++) {
            const in_file *in = &o->in[k];
            if (!same_file(&f->id, &in->id) ||
                (in->replaceable && (f->flags & RB_OUT_REPLACES_INPUT)))
                continue;
            label(b, sizeof b, in->what, in->path);
            rb_fmt(err, err_size, "%s would replace an input, %s (the same file): nothing written",
                   a, b);
            return -1;
        }
        for (int k = 0; k < i; k++)
            if (same_file(&f->id, &o->out[k].id)) {
                label(b, sizeof b, o->out[k].what, o->out[k].path);
                rb_fmt(err, err_size,
                       "%s and %s are the same file, which would be written twice: nothing "
                       "written",
                       b, a);
                return -1;
            }
    }
    o->checked = 1;
    return 0;
}

/* ---- staging ---- */

/* RB_TEST_FAULT=outputs:enospc@K: the K-th output staged in the process fails. */
static int fault_now(void)
{
    static int staged;
    const char *f = getenv("RB_TEST_FAULT");
    int k = 0;
    staged++;
    return f && sscanf(f, "outputs:enospc@%d", &k) == 1 && k == staged;
}

/* Makes the folder of an RB_OUT_MAKE_DIRS output, noting below which ancestor. */
static int make_folder(out_file *f, char *err, size_t err_size)
{
    char dir[PATH_MAX], at[PATH_MAX];
    struct stat st;
    dir_of(f->target, dir, sizeof dir);
    if (!(f->flags & RB_OUT_MAKE_DIRS) || stat(dir, &st) == 0)
        return 0;
    if (existing_ancestor(dir, at, sizeof at) != 0)
        at[0] = '\0';
    if (rb_mkdirs(dir, err, err_size) != 0)
        return -1;
    rb_fmt(f->made_below, sizeof f->made_below, "%s", at[0] ? at : "/");
    return 0;
}

/* A temporary of TMP_TEMPLATE in dir, its slot claimed and its name in tmp_paths: the open
 * descriptor, or -1 with err set (who: the output it is for). */
static int make_temporary(const char *dir, const char *who, int *slot_out, char *err,
                          size_t err_size)
{
    int slot = tmp_claim();
    if (slot < 0) {
        rb_fmt(err, err_size, "%s: too many files staged at once", who);
        return -1;
    }
    rb_fmt(tmp_paths[slot], sizeof tmp_paths[slot], "%s/" TMP_TEMPLATE, dir);
    /* marked before mkstemp, which fills the name in before it creates the file: a signal
     * handler removes either nothing or the file */
    tmp_used[slot] = 1;
    int fd = mkstemp(tmp_paths[slot]);
    if (fd < 0) {
        tmp_used[slot] = 0;
        rb_fmt(err, err_size, "%s: cannot create a temporary in %s: %s", who, dir, strerror(errno));
        return -1;
    }
    *slot_out = slot;
    return fd;
}

/* A temporary in the folder of f (made first, for an RB_OUT_MAKE_DIRS output): as
 * make_temporary. */
static int temporary_beside(out_file *f, int *slot, char *err, size_t err_size)
{
    char dir[PATH_MAX];
    if (make_folder(f, err, err_size) != 0)
        return -1;
    dir_of(f->target, dir, sizeof dir);
    return make_temporary(dir, f->path, slot, err, err_size);
}

FILE *rb_outputs_open(rb_outputs *o, int index, char *err, size_t err_size)
{
    if (!o->checked && rb_outputs_check(o, err, err_size) != 0)
        return NULL;
    out_file *f = &o->out[index];
    tmp_release(f->slot, 1);
    f->slot = -1;
    f->writing = 0;
    int slot, fd = temporary_beside(f, &slot, err, err_size);
    if (fd < 0)
        return NULL;
    FILE *stream = fchmod(fd, f->mode) == 0 ? fdopen(fd, "w") : NULL;
    if (!stream) {
        rb_fmt(err, err_size, "%s: write failed: %s", f->path, strerror(errno));
        close(fd);
        tmp_release(slot, 1);
        return NULL;
    }
    f->slot = slot; /* (removed by rb_outputs_free if never closed) */
    f->writing = 1;
    return stream;
}

int rb_outputs_close(rb_outputs *o, int index, FILE *stream, char *err, size_t err_size)
{
    out_file *f = &o->out[index];
    int ok = fflush(stream) == 0 && !ferror(stream);
    int saved = ok ? 0 : (errno ? errno : EIO);
    if (ok && fault_now()) {
        ok = 0;
        saved = ENOSPC;
    }
    if (ok && fsync(fileno(stream)) != 0) {
        ok = 0;
        saved = errno;
    }
    if (fclose(stream) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    f->writing = 0;
    if (!ok) {
        tmp_release(f->slot, 1);
        f->slot = -1;
        rb_fmt(err, err_size, "%s: write failed: %s", f->path, strerror(saved ? saved : EIO));
        return -1;
    }
    return 0;
}

int rb_outputs_stage_made(rb_outputs *o, int index, void (*make)(rb_sbuf *b, const void *ctx),
                          const void *ctx, char *err, size_t err_size)
{
    FILE *f = rb_outputs_open(o, index, err, err_size);
    if (!f)
        return -1;
    rb_sbuf b = {.sink = f};
    make(&b, ctx);
    int made = rb_sbuf_flush(&b) == 0;
    if (rb_outputs_close(o, index, f, err, err_size) != 0) /* (a write that failed: said here) */
        return -1;
    if (!made) {
        tmp_release(o->out[index].slot, 1);
        o->out[index].slot = -1;
        rb_fmt(err, err_size, "%s: out of memory", o->out[index].path);
        return -1;
    }
    return 0;
}

FILE *rb_outputs_read(const rb_outputs *o, int index)
{
    const out_file *f = &o->out[index];
    return f->slot >= 0 && !f->writing ? fopen(tmp_paths[f->slot], "rb") : NULL;
}

FILE *rb_outputs_scratch(rb_outputs *o, int index, char *err, size_t err_size)
{
    out_file *f = &o->out[index];
    int slot, fd = temporary_beside(f, &slot, err, err_size);
    if (fd < 0)
        return NULL;
    tmp_release(slot, 1); /* unlinked: it goes with its descriptor */
    FILE *stream = fdopen(fd, "w+");
    if (!stream) {
        rb_fmt(err, err_size, "%s: %s", f->path, strerror(errno));
        close(fd);
    }
    return stream;
}

int rb_outputs_stage(rb_outputs *o, int index, const char *const *parts, int n_parts, char *err,
                     size_t err_size)
{
    FILE *stream = rb_outputs_open(o, index, err, err_size);
    if (!stream)
        return -1;
    for (int i = 0; i < n_parts; i++)
        fputs(parts[i], stream);
    return rb_outputs_close(o, index, stream, err, err_size);
}

int rb_outputs_stage_text(rb_outputs *o, int index, const char *text, char *err, size_t err_size)
{
    return rb_outputs_stage(o, index, &text, 1, err, err_size);
}

/* ---- commit ---- */

/* An optional output left unstaged: not written, and no file of its name left. */
static int left_out(const out_file *f)
{
    return (f->flags & RB_OUT_OPTIONAL) && f->slot < 0 && !f->writing;
}


static void sync_folder(const char *path)
{
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return;
    (void)fsync(fd);
    close(fd);
}

/* The RB_OUT_NEW outputs, linked to their names (never replacing one): 0, 1 when a name is
 * taken (the ones linked before it are unlinked again), -1 on another error. */
static int link_new(rb_outputs *o, char *err, size_t err_size)
{
    for (int i = 0; i < o->n_out; i++) {
        out_file *f = &o->out[i];
        if (!(f->flags & RB_OUT_NEW) || left_out(f))
            continue;
        if (link(tmp_paths[f->slot], f->target) == 0)
            continue;
        int saved = errno;
        for (int k = 0; k < i; k++)
            if ((o->out[k].flags & RB_OUT_NEW) && !left_out(&o->out[k]))
                unlink(o->out[k].target);
        if (saved == EEXIST)
            return 1;
        rb_fmt(err, err_size, "%s: %s", f->path, strerror(saved));
        return -1;
    }
    return 0;
}

/* RB_TEST_FAULT=slow:commit: half a second after each rename, so that another command's commit
 * falls between two of this one's (the folder locks keep them apart). */
static void slow_commit(void)
{
    const char *f = getenv("RB_TEST_FAULT");
    struct timespec half = {0, 500000000};
    if (f && !strcmp(f, "slow:commit"))
        while (nanosleep(&half, &half) != 0 && errno == EINTR)
            ;
}

/* Renames the other outputs into place; a target that became something other than a regular
 * file since the check is not replaced. */
static int rename_rest(rb_outputs *o, char *err, size_t err_size)
{
    struct stat st;
    for (int i = 0; i < o->n_out; i++) {
        out_file *f = &o->out[i];
        if (left_out(f)) {
            /* a file of that name from an earlier command describes another run: gone */
            if (lstat(f->target, &st) == 0 && S_ISREG(st.st_mode) && unlink(f->target) != 0) {
                rb_fmt(err, err_size, "%s: cannot remove it: %s", f->path, strerror(errno));
                return -1;
            }
            continue;
        }
        if (f->flags & RB_OUT_NEW) {
            tmp_release(f->slot, 1); /* its name is linked */
            f->slot = -1;
            f->made_below[0] = '\0';
            continue;
        }
        if (lstat(f->target, &st) == 0 && !S_ISREG(st.st_mode)) {
            rb_fmt(err, err_size, "%s: became %s while it was written: not replaced", f->path,
                   kind_of(st.st_mode));
            return -1;
        }
        if (rename(tmp_paths[f->slot], f->target) != 0) {
            rb_fmt(err, err_size, "%s: rename failed: %s", f->path, strerror(errno));
            return -1;
        }
        tmp_release(f->slot, 0);
        f->slot = -1;
        f->made_below[0] = '\0'; /* the folder holds a file of ours now */
        slow_commit();
    }
    return 0;
}

/* The folders of a set of two outputs or more, each locked (flock, exclusive) in the order of
 * their device and inode, so that two commands committing pairs of the same names at once
 * commit one after the other: the files left are one command's (a JSON and its HTML page from
 * the same comparison), never a mix. Released when their descriptors close. */
typedef struct folder_lock {
    int fd;
    dev_t dev;
    ino_t ino;
} folder_lock;

static int by_folder(const void *pa, const void *pb)
{
    const folder_lock *a = pa, *b = pb;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    return a->ino < b->ino ? -1 : a->ino > b->ino;
}

static int lock_folders(const rb_outputs *o, folder_lock *locks)
{
    int n = 0;
    for (int i = 0; o->n_out > 1 && i < o->n_out; i++) {
        char dir[PATH_MAX];
        struct stat st;
        dir_of(o->out[i].target, dir, sizeof dir);
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            continue; /* (the rename says what is wrong with it) */
        int known = fstat(fd, &st) != 0;
        for (int k = 0; !known && k < n; k++)
            known = locks[k].dev == st.st_dev && locks[k].ino == st.st_ino;
        if (known) {
            close(fd);
            continue;
        }
        locks[n++] = (folder_lock){fd, st.st_dev, st.st_ino};
    }
    if (n > 1)
        qsort(locks, (size_t)n, sizeof *locks, by_folder);
    for (int k = 0; k < n; k++)
        while (flock(locks[k].fd, LOCK_EX) != 0 && errno == EINTR)
            ;
    return n;
}

static void unlock_folders(folder_lock *locks, int n)
{
    for (int k = 0; k < n; k++)
        close(locks[k].fd);
}

int rb_outputs_staged(const rb_outputs *o, int index)
{
    return index >= 0 && index < o->n_out && o->out[index].slot >= 0 && !o->out[index].writing;
}

int rb_outputs_commit(rb_outputs *o, char *err, size_t err_size)
{
    for (int i = 0; i < o->n_out; i++)
        if ((o->out[i].slot < 0 || o->out[i].writing) && !left_out(&o->out[i])) {
            rb_fmt(err, err_size, "%s: not written", o->out[i].path);
            rb_outputs_drop_from(o, 0);
            return -1;
        }
    folder_lock locks[RB_OUTPUTS_MAX];
    int n_locks = lock_folders(o, locks);
    rb_test_stall("rename");
    sigset_t hold, before;
    sigemptyset(&hold);
    /* (every signal whose default action ends the process: the runner catches them all) */
    static const int held[] = {SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGUSR1, SIGUSR2,
                               SIGALRM, SIGPIPE, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ};
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++)
        sigaddset(&hold, held[i]);
    sigprocmask(SIG_BLOCK, &hold, &before);
    int rc = link_new(o, err, err_size);
    if (rc == 0)
        rc = rename_rest(o, err, err_size);
    if (rc >= 0)
        for (int i = 0; i < o->n_out; i++)
            sync_folder(o->out[i].target);
    if (rc < 0) /* what was not renamed goes */
        rb_outputs_drop_from(o, 0);
    sigprocmask(SIG_SETMASK, &before, NULL);
    unlock_folders(locks, n_locks);
    return rc;
}

/* ---- one file ---- */

int rb_write_file_atomic(const char *path, const char *text, char *err, size_t err_size)
{
    rb_outputs *o = rb_outputs_new(0);
    if (!o) {
        rb_fmt(err, err_size, "%s: out of memory", path);
        return -1;
    }
    int rc = rb_outputs_add(o, path, "", 0) < 0 || rb_outputs_check(o, err, err_size) != 0 ||
                     rb_outputs_stage_text(o, 0, text, err, err_size) != 0 ||
                     rb_outputs_commit(o, err, err_size) != 0
                 ? -1
                 : 0;
    rb_outputs_free(o);
    return rc;
}

int rb_output_file_ok(const char *path, int make_dirs, char *err, size_t err_size)
{
    rb_outputs *o = rb_outputs_new(0);
    if (!o) {
        rb_fmt(err, err_size, "%s: out of memory", path);
        return -1;
    }
    int rc = rb_outputs_add(o, path, "", make_dirs ? RB_OUT_MAKE_DIRS : 0) < 0
                 ? -1
                 : rb_outputs_check(o, err, err_size);
    rb_outputs_free(o);
    return rc;
}

/* ---- a lock beside a file ---- */

int rb_lock_beside(const char *path, char *err, size_t err_size)
{
    char lock[PATH_MAX + 8], dir[PATH_MAX];
    if (rb_fmt_fits(lock, sizeof lock, "%s.lock", path) != 0 ||
        name_fits(lock, err, err_size) != 0) {
        rb_fmt(err, err_size, "%.60s...: the path is too long", path);
        return -1;
    }
    dir_of(lock, dir, sizeof dir);
    if (rb_mkdirs(dir, err, err_size) != 0)
        return -1;
    int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        rb_fmt(err, err_size, "%s: %s", lock, strerror(errno));
        return -1;
    }
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        printf("waiting for another roofbench to finish writing %s ...\n", path);
        fflush(stdout);
        while (fcntl(fd, F_SETLKW, &fl) != 0) {
            if (errno == EINTR)
                continue;
            rb_fmt(err, err_size, "%s: cannot lock: %s", lock, strerror(errno));
            close(fd);
            return -1;
        }
    }
    return fd;
}

void rb_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* the lock goes with the descriptor */
}
