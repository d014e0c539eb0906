#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QTcpServer>

#include <deque>
#include <functional>
#include <optional>

#include <QTcpSocket>

// A STAND-IN for a real model server, for tests only: an OpenAI-compatible chat completions endpoint on
// 127.0.0.1 (a free port) that speaks real HTTP/1.1 over QTcpServer and answers from a script. It knows
// nothing about language; every reply is whatever the test queued. It counts requests and the most it ever
// had in flight at once, so tests can check the client's concurrency limit.
class ScriptedLlmServer : public QObject
{
    Q_OBJECT
public:
    struct Request
    {
        QByteArray method;
        QByteArray path;
        QMap<QByteArray, QByteArray> headers; // names lower-cased
        QByteArray body;
        QJsonObject json;
    };
    struct Response
    {
        int status = 200;
        QList<QPair<QByteArray, QByteArray>> headers;
        QByteArray body;
        QByteArray contentType = "application/json";
        int delayMs = 0;
        bool hang = false;           // never answer (the client must time out or cancel)
        QList<QByteArray> sseEvents; // when set: a text/event-stream reply, one `data:` event each
        bool stall = false;          // with sseEvents: send them, then fall silent with the connection open
    };
    using Handler = std::function<Response(const Request &)>;

    explicit ScriptedLlmServer(QObject *parent = nullptr);
    ~ScriptedLlmServer() override;
    bool start();
    QString baseUrl() const; // http://127.0.0.1:<port>/v1

    void enqueue(const Response &response) { m_script.push_back(response); }
    void setHandler(Handler handler) { m_handler = std::move(handler); } // used when the queue is empty
    int requestCount() const { return int(m_requests.size()); }
    const QList<Request> &requests() const { return m_requests; }
    int maxInFlight() const { return m_maxInFlight; }
    int inFlight() const { return m_inFlight; }

    // Replies that wait for the test instead of a clock (tests/README.md, "Work is not a clock"): while holding,
    // each reply is kept back until releaseHeld() (or setHolding(false)) sends it. holdUntilInFlight(n) holds
    // until n requests are in flight at once, then lets everything go for good: concurrency is then a fact of
    // the client, not a race the server may lose.
    void setHolding(bool on);
    int releaseHeld(); // sends what is held (each after its delayMs); how many
    void holdUntilInFlight(int n);

    // Canned replies.
    struct Usage
    {
        qint64 prompt;
        qint64 completion;
    };
    static Response completion(const QString &content, std::optional<Usage> usage = Usage{12, 34});
    static Response error(int status, const QByteArray &message,
                          const QList<QPair<QByteArray, QByteArray>> &headers = {});
    static Response streamed(const QStringList &pieces, std::optional<Usage> usage = Usage{5, 7});

private:
    struct Connection
    {
        QByteArray buffer;
        bool busy = false; // a request is being answered; HTTP/1.1 answers in order
    };
    void onReadyRead(QTcpSocket *socket);
    void answer(QTcpSocket *socket, const Response &response);
    void answerLater(QTcpSocket *socket, const Response &response);
    void finishRequest(QTcpSocket *socket);

    QTcpServer m_server;
    std::deque<Response> m_script;
    Handler m_handler;
    QList<Request> m_requests;
    QMap<QTcpSocket *, Connection> m_connections;
    int m_inFlight = 0;
    int m_maxInFlight = 0;
    bool m_holding = false;
    int m_holdUntilInFlight = 0;
    QList<QPair<QPointer<QTcpSocket>, Response>> m_held;
};
