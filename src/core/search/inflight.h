#pragma once

#include <QSet>
#include <QtGlobal>

#include <functional>

// The work of one search step still out (model calls, evaluations, and a hold while the step fans out), kept
// as a set of keys instead of a counter raised and lowered by hand: a key is opened once and closed once, so
// closing the same work twice, or resubmitting it, cannot end a step early, and no line has to compensate for
// another. When the close of the last open key empties the set, idle() runs: the search decides what comes
// next. A Token closes its key when it goes out of scope, so work that ends where it starts (a fan-out held
// open until every first call is out, a handler that finishes one call) cannot forget to give it back.
class InFlight
{
public:
    using Key = quint64;

    class Token
    {
    public:
        Token() = default;
        Token(Token &&other) noexcept;
        Token &operator=(Token &&other) noexcept;
        Token(const Token &) = delete;
        Token &operator=(const Token &) = delete;
        ~Token() { release(); }

        Key key() const { return m_key; }
        void release(); // closes the key now (once); the destructor then does nothing

    private:
        friend class InFlight;
        Token(InFlight *owner, Key key) : m_owner(owner), m_key(key) {}
        InFlight *m_owner = nullptr;
        Key m_key = 0;
    };

    explicit InFlight(std::function<void()> idle = {}) : m_idle(std::move(idle)) {}
    void setIdle(std::function<void()> idle) { m_idle = std::move(idle); }

    Key open();            // a new key, never 0 and never reused, even across clear()
    void close(Key key);   // a key not open (closed already, or cleared) is ignored
    Token hold();          // open() whose key the token closes
    Token redeem(Key key); // the token closes an already open key when it goes out of scope
    bool isOpen(Key key) const { return m_open.contains(key); }
    int count() const { return int(m_open.size()); }
    bool isIdle() const { return m_open.isEmpty(); }
    void clear(); // the run ended: every key is forgotten and idle() does not run

private:
    std::function<void()> m_idle;
    QSet<Key> m_open;
    Key m_last = 0;
};
