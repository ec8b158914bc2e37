/// One endpoint request and its response, as a function's context carries them.
package struct EndpointExchange: Sendable {
    package let request: EndpointRequest
    package let response: EndpointResponse

    package init(request: EndpointRequest, response: EndpointResponse) {
        self.request = request
        self.response = response
    }
}
