/*
 * rowcast-zmq-baseline: the raw ZeroMQ ceiling for rowcast-bench, in plain C against libzmq,
 * so the Swift wrapper's own cost is not in the baseline.
 *
 *   rowcast-zmq-baseline one-hop ITEMS    PUSH -> PULL
 *   rowcast-zmq-baseline forward ITEMS    PUSH -> PULL -> PUB (topic frame) -> SUB
 *   rowcast-zmq-baseline relay TOPIC      PULL -> PUB (TOPIC and a NUL as the topic frame)
 *
 * The messages are car-feed upserts of the same shape and size as rowcast-bench's (about 250
 * bytes). Prints one line: "<seconds> <items>", the time from the first send to the last
 * message received (after a warm-up that waits out the slow joiner).
 *
 * `relay` is the latency benchmark's floor: it binds a PULL and a PUB socket on loopback,
 * prints "<pull endpoint> <pub endpoint>", and forwards each message as [TOPIC NUL, message]
 * until it is killed, so the benchmark's own producer and subscriber can be timed through a
 * forwarder that does nothing else.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

static void *context;
static char pull_endpoint[256], pub_endpoint[256];
static int items;
static volatile int stop;
static char topic[256] = "rows.cars";

static void die(const char *what) {
    fprintf(stderr, "rowcast-zmq-baseline: %s: %s\n", what, zmq_strerror(zmq_errno()));
    exit(1);
}

static void *socket_with(int type) {
    void *socket = zmq_socket(context, type);
    if (!socket) die("zmq_socket");
    int zero = 0;
    zmq_setsockopt(socket, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(socket, ZMQ_SNDHWM, &zero, sizeof zero);
    zmq_setsockopt(socket, ZMQ_RCVHWM, &zero, sizeof zero);
    return socket;
}

static void bind_any(void *socket, char *endpoint) {
    if (zmq_bind(socket, "tcp://127.0.0.1:*") != 0) die("zmq_bind");
    size_t length = 256;
    zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, endpoint, &length);
}

static size_t message(char *buffer, size_t size, int index) {
    return (size_t)snprintf(buffer, size,
        "{\"op\":\"upsert\",\"feed\":\"cars%d\",\"item\":{\"id\":\"base-%d\",\"type\":\"product\",\"section\":\"s%d\","
        "\"data\":{\"name\":\"Tesla Model 3 Long Range %d\",\"operatedBy\":\"Tesla Inc.\",\"price\":%d,"
        "\"image\":\"https://img.example/cars/%d.png\"}}}",
        index % 4, index, index / 4 % 16, index, 30000 + index % 20000, index % 997);
}

/* PULL -> PUB with a topic frame, until stopped. */
static void *forwarder(void *unused) {
    (void)unused;
    void *input = socket_with(ZMQ_PULL), *output = socket_with(ZMQ_PUB);
    int timeout = 100;
    zmq_setsockopt(input, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    bind_any(input, pull_endpoint);
    bind_any(output, pub_endpoint);
    char buffer[65536];
    size_t topic_size = strlen(topic) + 1;  /* with its NUL, as rowcastd's topics */
    while (!stop) {
        int length = zmq_recv(input, buffer, sizeof buffer, 0);
        if (length < 0 || length > (int)sizeof buffer) continue;
        zmq_send(output, topic, topic_size, ZMQ_SNDMORE);
        zmq_send(output, buffer, (size_t)length, 0);
    }
    zmq_close(input);
    zmq_close(output);
    return NULL;
}

/* PUSH every message to pull_endpoint. */
static void *producer(void *unused) {
    (void)unused;
    void *push = socket_with(ZMQ_PUSH);
    int forever = -1;
    zmq_setsockopt(push, ZMQ_LINGER, &forever, sizeof forever);
    if (zmq_connect(push, pull_endpoint) != 0) die("zmq_connect");
    char buffer[1024];
    for (int index = 0; index < items; index++) {
        size_t length = message(buffer, sizeof buffer, index);
        if (zmq_send(push, buffer, length, 0) < 0) die("zmq_send");
    }
    zmq_close(push);
    return NULL;
}

static double now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

/* The relay mode: forwards until killed. */
static int relay(void) {
    pthread_t forwarding;
    pthread_create(&forwarding, NULL, forwarder, NULL);
    while (!pub_endpoint[0]) { struct timespec pause = {0, 1000000}; nanosleep(&pause, NULL); }
    printf("%s %s\n", pull_endpoint, pub_endpoint);
    fflush(stdout);
    pthread_join(forwarding, NULL);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "relay") == 0 && strlen(argv[2]) < sizeof topic) {
        strcpy(topic, argv[2]);
        context = zmq_ctx_new();
        return relay();
    }
    if (argc != 3 || (strcmp(argv[1], "one-hop") != 0 && strcmp(argv[1], "forward") != 0) || (items = atoi(argv[2])) <= 0) {
        fprintf(stderr, "usage: rowcast-zmq-baseline one-hop|forward ITEMS\n       rowcast-zmq-baseline relay TOPIC\n");
        return 64;
    }
    context = zmq_ctx_new();
    int forward = strcmp(argv[1], "forward") == 0;
    void *receiver;
    pthread_t forwarding = 0, producing;
    int timeout = 10000;
    char buffer[1024];
    if (forward) {
        pthread_create(&forwarding, NULL, forwarder, NULL);
        while (!pub_endpoint[0]) { struct timespec pause = {0, 1000000}; nanosleep(&pause, NULL); }
        receiver = socket_with(ZMQ_SUB);
        zmq_setsockopt(receiver, ZMQ_SUBSCRIBE, "", 0);
        zmq_setsockopt(receiver, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
        if (zmq_connect(receiver, pub_endpoint) != 0) die("zmq_connect");
        /* Slow joiner: send warm-ups until one arrives, then drain them. */
        void *warm = socket_with(ZMQ_PUSH);
        zmq_connect(warm, pull_endpoint);
        int zero = 0;
        for (;;) {
            zmq_send(warm, "warm-up", 7, 0);
            if (zmq_recv(receiver, buffer, sizeof buffer, ZMQ_DONTWAIT) >= 0) break;
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
        }
        struct timespec settle = {0, 200000000};
        nanosleep(&settle, NULL);
        while (zmq_recv(receiver, buffer, sizeof buffer, ZMQ_DONTWAIT) >= 0) {}
        zmq_setsockopt(warm, ZMQ_LINGER, &zero, sizeof zero);
        zmq_close(warm);
    } else {
        receiver = socket_with(ZMQ_PULL);
        zmq_setsockopt(receiver, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
        bind_any(receiver, pull_endpoint);
    }
    double start = now();
    pthread_create(&producing, NULL, producer, NULL);
    int received = 0;
    while (received < items) {
        int length = zmq_recv(receiver, buffer, sizeof buffer, 0);
        if (length < 0) { fprintf(stderr, "rowcast-zmq-baseline: stalled at %d of %d\n", received, items); return 1; }
        int more = 0;
        size_t size = sizeof more;
        zmq_getsockopt(receiver, ZMQ_RCVMORE, &more, &size);
        if (!more) received++;
    }
    double elapsed = now() - start;
    printf("%.6f %d\n", elapsed, items);
    pthread_join(producing, NULL);
    stop = 1;
    if (forward) pthread_join(forwarding, NULL);
    zmq_close(receiver);
    zmq_ctx_term(context);
    return 0;
}
