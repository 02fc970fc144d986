/**
 * Type table of the Kubernetes API schemas the simulator publishes (part: access and extensions).
 * rbac.authorization.k8s.io/v1 roles and bindings, authorization.k8s.io/v1 SelfSubjectAccessReview
 * and apiextensions.k8s.io/v1 CustomResourceDefinition with its JSONSchemaProps.
 *
 * Same notation and sources as lib/sim/schema/openapi-types-workloads.ts: field lists are the models
 * of @kubernetes/client-node 1.4.0 (generated from the Kubernetes OpenAPI). None of these types
 * carries a patchStrategy struct tag (their lists are `+listType=atomic` or maps keyed by type), so
 * no field has patch metadata. JSON, JSONSchemaPropsOrBool, JSONSchemaPropsOrArray and
 * JSONSchemaPropsOrStringArray are published without a type, so they are `json` here.
 */
import type { TypeTable } from './type-table.ts';

/** The access-and-extensions part of the schema type table. */
export const accessTypes: TypeTable = {
  Role: ['rbac', `apiVersion:s kind:s metadata:ObjectMeta rules:[PolicyRule]`],
  ClusterRole: [
    'rbac',
    `aggregationRule:AggregationRule apiVersion:s kind:s metadata:ObjectMeta rules:[PolicyRule]`,
  ],
  AggregationRule: ['rbac', `clusterRoleSelectors:[LabelSelector]`],
  PolicyRule: ['rbac', `apiGroups:[s] nonResourceURLs:[s] resourceNames:[s] resources:[s] verbs:[s]`],
  RoleBinding: ['rbac', `apiVersion:s kind:s metadata:ObjectMeta roleRef:RoleRef subjects:[Subject]`],
  ClusterRoleBinding: ['rbac', `apiVersion:s kind:s metadata:ObjectMeta roleRef:RoleRef subjects:[Subject]`],
  RoleRef: ['rbac', `apiGroup:s kind:s name:s`],
  Subject: ['rbac', `apiGroup:s kind:s name:s namespace:s`],
  SelfSubjectAccessReview: [
    'authorization',
    `apiVersion:s kind:s metadata:ObjectMeta spec:SelfSubjectAccessReviewSpec
    status:SubjectAccessReviewStatus`,
  ],
  SelfSubjectAccessReviewSpec: [
    'authorization',
    `nonResourceAttributes:NonResourceAttributes resourceAttributes:ResourceAttributes`,
  ],
  ResourceAttributes: [
    'authorization',
    `fieldSelector:FieldSelectorAttributes group:s labelSelector:LabelSelectorAttributes name:s
    namespace:s resource:s subresource:s verb:s version:s`,
  ],
  FieldSelectorAttributes: ['authorization', `rawSelector:s requirements:[FieldSelectorRequirement]`],
  FieldSelectorRequirement: ['meta', `key:s operator:s values:[s]`],
  LabelSelectorAttributes: ['authorization', `rawSelector:s requirements:[LabelSelectorRequirement]`],
  NonResourceAttributes: ['authorization', `path:s verb:s`],
  SubjectAccessReviewStatus: ['authorization', `allowed:b denied:b evaluationError:s reason:s`],
  CustomResourceDefinition: [
    'apiextensions',
    `apiVersion:s kind:s metadata:ObjectMeta spec:CustomResourceDefinitionSpec
    status:CustomResourceDefinitionStatus`,
  ],
  CustomResourceDefinitionSpec: [
    'apiextensions',
    `conversion:CustomResourceConversion group:s names:CustomResourceDefinitionNames
    preserveUnknownFields:b scope:s versions:[CustomResourceDefinitionVersion]`,
  ],
  CustomResourceConversion: ['apiextensions', `strategy:s webhook:WebhookConversion`],
  WebhookConversion: ['apiextensions', `clientConfig:WebhookClientConfig conversionReviewVersions:[s]`],
  WebhookClientConfig: ['apiextensions', `caBundle:bytes service:ServiceReference url:s`],
  ServiceReference: ['apiextensions', `name:s namespace:s path:s port:i32`],
  CustomResourceDefinitionNames: [
    'apiextensions',
    `categories:[s] kind:s listKind:s plural:s shortNames:[s] singular:s`,
  ],
  CustomResourceDefinitionVersion: [
    'apiextensions',
    `additionalPrinterColumns:[CustomResourceColumnDefinition] deprecated:b deprecationWarning:s
    name:s schema:CustomResourceValidation selectableFields:[SelectableField] served:b storage:b
    subresources:CustomResourceSubresources`,
  ],
  CustomResourceColumnDefinition: [
    'apiextensions',
    `description:s format:s jsonPath:s name:s priority:i32 type:s`,
  ],
  CustomResourceValidation: ['apiextensions', `openAPIV3Schema:JSONSchemaProps`],
  SelectableField: ['apiextensions', `jsonPath:s`],
  CustomResourceSubresources: ['apiextensions', `scale:CustomResourceSubresourceScale status:any`],
  CustomResourceSubresourceScale: [
    'apiextensions',
    `labelSelectorPath:s specReplicasPath:s statusReplicasPath:s`,
  ],
  JSONSchemaProps: [
    'apiextensions',
    `$ref:s $schema:s additionalItems:json additionalProperties:json allOf:[JSONSchemaProps]
    anyOf:[JSONSchemaProps] default:json definitions:{JSONSchemaProps} dependencies:{json}
    description:s enum:[json] example:json exclusiveMaximum:b exclusiveMinimum:b
    externalDocs:ExternalDocumentation format:s id:s items:json maxItems:i64 maxLength:i64
    maxProperties:i64 maximum:n minItems:i64 minLength:i64 minProperties:i64 minimum:n multipleOf:n
    not:JSONSchemaProps nullable:b oneOf:[JSONSchemaProps] pattern:s
    patternProperties:{JSONSchemaProps} properties:{JSONSchemaProps} required:[s] title:s type:s
    uniqueItems:b x-kubernetes-embedded-resource:b x-kubernetes-int-or-string:b
    x-kubernetes-list-map-keys:[s] x-kubernetes-list-type:s x-kubernetes-map-type:s
    x-kubernetes-preserve-unknown-fields:b x-kubernetes-validations:[ValidationRule]`,
  ],
  ExternalDocumentation: ['apiextensions', `description:s url:s`],
  ValidationRule: [
    'apiextensions',
    `fieldPath:s message:s messageExpression:s optionalOldSelf:b reason:s rule:s`,
  ],
  CustomResourceDefinitionStatus: [
    'apiextensions',
    `acceptedNames:CustomResourceDefinitionNames conditions:[CustomResourceDefinitionCondition]
    storedVersions:[s]`,
  ],
  CustomResourceDefinitionCondition: [
    'apiextensions',
    `lastTransitionTime:time message:s reason:s status:s type:s`,
  ],
};
