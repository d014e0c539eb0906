#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QObject>

#include <memory>

// The MCP stdio transport: newline-delimited JSON messages, read from stdin on a thread of their own (a
// blocking read works on every kind of stdin: pipe, file, terminal) and handed to this object's thread as
// signals; written to stdout one line each. open() moves the process's fd 1 to stderr and keeps the real
// stdout for the protocol alone, so a stray print anywhere (a library, a child that inherits fd 1) lands in
// the log instead of corrupting the stream.
class McpStdio : public QObject
{
    Q_OBJECT
public:
    static constexpr qsizetype maxLineBytes = 64 * 1024 * 1024;

    explicit McpStdio(QObject *parent = nullptr);
    ~McpStdio() override;

    bool open(QString &error);
    void send(const QJsonObject &message);

Q_SIGNALS:
    void lineReceived(const QByteArray &line);
    void lineTooLong(); // a line over maxLineBytes was dropped
    void closed();      // stdin ended: the client is gone

private:
    struct Shared;
    std::shared_ptr<Shared> m_shared;
    int m_out = -1;
};
