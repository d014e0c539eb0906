#include "scriptedllmserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

#include <utility>

ScriptedLlmServer::ScriptedLlmServer(QObject *parent) : QObject(parent)
{
    connect(&m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_server.nextPendingConnection()) {
            m_connections.insert(socket, Connection{});
            connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
            connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
                // A client that gives up (timeout, cancel) closes the connection mid-request.
                if (m_connections.value(socket).busy)
                    --m_inFlight;
                m_connections.remove(socket);
                socket->deleteLater();
            });
        }
    });
}

ScriptedLlmServer::~ScriptedLlmServer()
{
    // The sockets die with m_server, after the members their handlers use: cut the handlers first.
    for (QTcpSocket *socket : m_connections.keys())
        socket->disconnect(this);
    m_server.close();
}

bool ScriptedLlmServer::start()
{
    return m_server.listen(QHostAddress::LocalHost, 0);
}

QString ScriptedLlmServer::baseUrl() const
{
    return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_server.serverPort());
}

void ScriptedLlmServer::onReadyRead(QTcpSocket *socket)
{
    auto it = m_connections.find(socket);
    if (it == m_connections.end())
        return;
    it->buffer += socket->readAll();
    while (!it->busy) {
        const qsizetype headerEnd = it->buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0)
            return;
        const QList<QByteArray> lines = it->buffer.left(headerEnd).split('\n');
        Request request;
        const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
        request.method = requestLine.value(0);
        request.path = requestLine.value(1);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines.at(i).indexOf(':');
            if (colon > 0)
                request.headers.insert(lines.at(i).left(colon).trimmed().toLower(),
                                       lines.at(i).mid(colon + 1).trimmed());
        }
        const qsizetype length = request.headers.value("content-length", "0").toLongLong();
        if (it->buffer.size() < headerEnd + 4 + length)
            return;
        request.body = it->buffer.mid(headerEnd + 4, length);
        it->buffer.remove(0, headerEnd + 4 + length);
        request.json = QJsonDocument::fromJson(request.body).object();
        m_requests.append(request);
        it->busy = true;
        m_maxInFlight = std::max(m_maxInFlight, ++m_inFlight);

        Response response;
        if (!m_script.empty()) {
            response = m_script.front();
            m_script.pop_front();
        } else if (m_handler) {
            response = m_handler(request);
        } else {
            response = error(500, "the scripted server has no reply queued");
        }
        if (response.hang)
            return; // stays in flight until the client disconnects
        if (m_holdUntilInFlight > 0 && m_inFlight >= m_holdUntilInFlight) {
            m_holdUntilInFlight = 0;
            m_held.append({QPointer<QTcpSocket>(socket), response});
            setHolding(false);
            return;
        }
        if (m_holding) {
            m_held.append({QPointer<QTcpSocket>(socket), response});
            return;
        }
        answerLater(socket, response);
    }
}

void ScriptedLlmServer::answerLater(QTcpSocket *socket, const Response &response)
{
    QPointer<QTcpSocket> guard(socket);
    QTimer::singleShot(response.delayMs, this, [this, guard, response] {
        if (guard)
            answer(guard, response);
    });
}

void ScriptedLlmServer::setHolding(bool on)
{
    m_holding = on;
    if (!on)
        releaseHeld();
}

int ScriptedLlmServer::releaseHeld()
{
    const auto held = std::exchange(m_held, {});
    int sent = 0;
    for (const auto &[socket, response] : held)
        if (socket && m_connections.contains(socket)) { // a client that gave up took its request with it
            answerLater(socket, response);
            ++sent;
        }
    return sent;
}

void ScriptedLlmServer::holdUntilInFlight(int n)
{
    m_holdUntilInFlight = n;
    m_holding = n > 0;
}

void ScriptedLlmServer::answer(QTcpSocket *socket, const Response &response)
{
    QByteArray head = "HTTP/1.1 " + QByteArray::number(response.status) + " Scripted\r\n";
    for (const auto &[name, value] : response.headers)
        head += name + ": " + value + "\r\n";
    if (!response.sseEvents.isEmpty()) {
        head += "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";
        socket->write(head);
        for (const QByteArray &event : response.sseEvents)
            socket->write("data: " + event + "\n\n");
        if (response.stall)
            return; // in flight until the client gives up on the silence and disconnects
        finishRequest(socket);
        m_connections.remove(socket);
        socket->disconnectFromHost(); // flushes first; the end of the stream is the end of the connection
        return;
    }
    head += "Content-Type: " + response.contentType +
            "\r\nContent-Length: " + QByteArray::number(response.body.size()) + "\r\n\r\n";
    socket->write(head + response.body);
    finishRequest(socket);
    onReadyRead(socket); // a next request may already be waiting on this connection
}

void ScriptedLlmServer::finishRequest(QTcpSocket *socket)
{
    auto it = m_connections.find(socket);
    if (it != m_connections.end() && it->busy) {
        it->busy = false;
        --m_inFlight;
    }
}

ScriptedLlmServer::Response ScriptedLlmServer::completion(const QString &content, std::optional<Usage> usage)
{
    QJsonObject o{{QStringLiteral("id"), QStringLiteral("chatcmpl-scripted")},
                  {QStringLiteral("object"), QStringLiteral("chat.completion")},
                  {QStringLiteral("choices"),
                   QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                          {QStringLiteral("message"),
                                           QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                                       {QStringLiteral("content"), content}}},
                                          {QStringLiteral("finish_reason"), QStringLiteral("stop")}}}}};
    if (usage)
        o.insert(QStringLiteral("usage"),
                 QJsonObject{{QStringLiteral("prompt_tokens"), usage->prompt},
                             {QStringLiteral("completion_tokens"), usage->completion},
                             {QStringLiteral("total_tokens"), usage->prompt + usage->completion}});
    Response r;
    r.body = QJsonDocument(o).toJson(QJsonDocument::Compact);
    return r;
}

ScriptedLlmServer::Response ScriptedLlmServer::error(int status, const QByteArray &message,
                                                     const QList<QPair<QByteArray, QByteArray>> &headers)
{
    Response r;
    r.status = status;
    r.headers = headers;
    r.body =
        QJsonDocument(QJsonObject{{QStringLiteral("error"),
                                   QJsonObject{{QStringLiteral("message"), QString::fromUtf8(message)}}}})
            .toJson(QJsonDocument::Compact);
    return r;
}

ScriptedLlmServer::Response ScriptedLlmServer::streamed(const QStringList &pieces, std::optional<Usage> usage)
{
    Response r;
    for (const QString &piece : pieces) {
        const QJsonObject chunk{{QStringLiteral("choices"),
                                 QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                                        {QStringLiteral("delta"),
                                                         QJsonObject{{QStringLiteral("content"), piece}}}}}}};
        r.sseEvents << QJsonDocument(chunk).toJson(QJsonDocument::Compact);
    }
    QJsonObject last{{QStringLiteral("choices"),
                      QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
                                             {QStringLiteral("delta"), QJsonObject{}},
                                             {QStringLiteral("finish_reason"), QStringLiteral("stop")}}}}};
    if (usage)
        last.insert(QStringLiteral("usage"),
                    QJsonObject{{QStringLiteral("prompt_tokens"), usage->prompt},
                                {QStringLiteral("completion_tokens"), usage->completion}});
    r.sseEvents << QJsonDocument(last).toJson(QJsonDocument::Compact) << QByteArray("[DONE]");
    return r;
}
